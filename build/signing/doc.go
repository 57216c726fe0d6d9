// Package signing signs an AI catalog under AI Catalog 1.0's did:web
// profiles (profile "did-web-v1"): a P-256 key as a JWK, a Signer that
// makes ES256 signatures with it (KeySigner, deterministic by RFC 6979; a
// key held by AWS KMS is another Signer, build/signing/awskms), the DID
// document of did:web:DOMAIN that publishes its public key under
// assertionMethod, and Sign, which gives a catalog's entries a signed
// Trust Manifest each (the Publisher Profile) and the catalog a root
// signature (the Catalog Profile).
//
// Every signature is a detached compact JWS ("header..signature") over the
// JCS form (RFC 8785, build/jcs) of the object that holds it without its
// signature's jws member (and without its additionalSignatures); the
// protected header is {"alg":"ES256","kid":DID#KEYID,"typ":TYP}, TYP
// ai-catalog+jws for the catalog and ai-catalog-trust-manifest+jws for a
// Trust Manifest. The standard library alone, and build/jcs.
package signing
