// An independent verifier of a signed AI catalog: npm's jose, given the
// DID document and the catalog as an HTTP server serves them. It prints
// one line per signature, "ok WHERE" or "refused WHERE: WHY", and exits 0.
// Usage: node verify.mjs JOSE_MODULE ORIGIN NOW_RFC3339
const [modulePath, origin, now] = process.argv.slice(2);
const jose = await import(modulePath);

// JCS (RFC 8785) of a JSON value: ECMAScript's JSON.stringify of strings
// and numbers is JCS's, and sort() orders names by UTF-16 code units.
const jcs = (v) =>
  v === null || typeof v !== "object"
    ? JSON.stringify(v)
    : Array.isArray(v)
      ? "[" + v.map(jcs).join(",") + "]"
      : "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + jcs(v[k])).join(",") + "}";

const get = async (path) => {
  const r = await fetch(origin + path);
  if (r.status !== 200) throw new Error(path + ": status " + r.status);
  return { type: r.headers.get("content-type"), body: await r.json() };
};
const did = await get("/.well-known/did.json");
const cat = await get("/.well-known/ai-catalog.json");
console.log("did.json " + did.type);

async function verify(where, obj, typ) {
  try {
    const sig = obj.signature;
    if (sig.profile !== "did-web-v1") throw new Error("profile " + sig.profile);
    const payload = structuredClone(obj);
    delete payload.signature.jws;
    delete payload.additionalSignatures;
    const [protectedHeader, rest] = sig.jws.split("..");
    const header = jose.decodeProtectedHeader(sig.jws.replace("..", ".x."));
    if (header.typ !== typ) throw new Error("typ " + header.typ);
    if (!header.kid || !header.kid.startsWith(sig.signer + "#")) throw new Error("kid " + header.kid);
    if (did.body.id !== sig.signer) throw new Error("DID document " + did.body.id);
    if (!did.body.assertionMethod.includes(header.kid)) throw new Error("kid not under assertionMethod");
    const vm = did.body.verificationMethod.find((m) => m.id === header.kid && m.controller === sig.signer);
    if (!vm) throw new Error("no verification method " + header.kid);
    const key = await jose.importJWK(vm.publicKeyJwk, "ES256");
    await jose.flattenedVerify(
      { protected: protectedHeader, payload: jose.base64url.encode(jcs(payload)), signature: rest },
      key,
      { algorithms: ["ES256"] },
    );
    if (Date.parse(now) < Date.parse(sig.issuedAt)) throw new Error("not yet issued");
    if (sig.expiresAt && Date.parse(now) >= Date.parse(sig.expiresAt)) throw new Error("expired");
    console.log("ok " + where);
  } catch (e) {
    console.log("refused " + where + ": " + (e.code || e.message));
  }
}

await verify("catalog", cat.body, "ai-catalog+jws");
for (const e of cat.body.entries) {
  for (const m of e.trustManifests || []) {
    await verify(e.identifier, m, "ai-catalog-trust-manifest+jws");
  }
}
