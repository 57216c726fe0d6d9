package awskms_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/signpost-dev/signpost/build/signing"
	"github.com/signpost-dev/signpost/build/signing/awskms"
)

const arn = "arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"

// fakeKMS serves KMS's GetPublicKey and Sign (the JSON 1.1 protocol the
// SDK speaks) for one P-256 key on 127.0.0.1.
func fakeKMS(t *testing.T, key *ecdsa.PrivateKey, spec string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	var signs atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		var in struct {
			KeyId, MessageType, SigningAlgorithm string
			Message                              []byte
		}
		if err := json.Unmarshal(body, &in); err != nil || in.KeyId != arn {
			http.Error(w, `{"__type":"NotFoundException","message":"no such key"}`, http.StatusBadRequest)
			return
		}
		if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
			http.Error(w, `{"__type":"AccessDeniedException","message":"unsigned"}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		switch r.Header.Get("X-Amz-Target") {
		case "TrentService.GetPublicKey":
			_ = json.NewEncoder(w).Encode(map[string]any{"KeyId": arn, "KeySpec": spec, "KeyUsage": "SIGN_VERIFY", "PublicKey": der, "SigningAlgorithms": []string{"ECDSA_SHA_256"}})
		case "TrentService.Sign":
			if in.MessageType != "DIGEST" || in.SigningAlgorithm != "ECDSA_SHA_256" || len(in.Message) != 32 {
				http.Error(w, `{"__type":"ValidationException","message":"bad sign"}`, http.StatusBadRequest)
				return
			}
			signs.Add(1)
			sig, _ := ecdsa.SignASN1(rand.Reader, key, in.Message)
			_ = json.NewEncoder(w).Encode(map[string]any{"KeyId": arn, "Signature": sig, "SigningAlgorithm": "ECDSA_SHA_256"})
		default:
			http.Error(w, `{"__type":"UnknownOperationException"}`, http.StatusBadRequest)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &signs
}

func opts(url string) awskms.Options {
	return awskms.Options{Endpoint: url, Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", ""), Timeout: 5 * time.Second}
}

// TestKMSSigner: the real SDK client, against a KMS on 127.0.0.1, reads
// the key and signs; each signature, turned from DER into r||s, verifies
// in a detached JWS, and two signatures of one payload differ.
func TestKMSSigner(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic256(), rand.Reader)
	srv, signs := fakeKMS(t, key, "ECC_NIST_P256")
	s, err := awskms.Open(t.Context(), arn, opts(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := signing.Thumbprint(&key.PublicKey)
	if s.KeyID() != want || !s.PublicJWK().Equal(&key.PublicKey) || s.Deterministic() {
		t.Fatalf("key %s, want %s", s.KeyID(), want)
	}
	a, err := signing.Detached(t.Context(), s, "did:web:example.com#"+s.KeyID(), signing.TypCatalog, []byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := signing.Detached(t.Context(), s, "did:web:example.com#"+s.KeyID(), signing.TypCatalog, []byte(`{}`))
	if a == b || signs.Load() != 2 {
		t.Errorf("two KMS signatures: %d calls, same %v", signs.Load(), a == b)
	}
	if !strings.Contains(a, "..") || len(strings.Split(a, "..")[1]) != 86 {
		t.Errorf("jws %q", a)
	}
}

func TestKMSRefusals(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic256(), rand.Reader)
	srv, _ := fakeKMS(t, key, "RSA_2048")
	if _, err := awskms.Open(t.Context(), arn, opts(srv.URL)); err == nil || !strings.Contains(err.Error(), "ECC_NIST_P256") {
		t.Errorf("RSA key: %v", err)
	}
	for _, bad := range []string{"alias/x", "arn:aws:s3:::bucket", "arn:aws:kms::1:key/x"} {
		if _, err := awskms.Open(t.Context(), bad, opts(srv.URL)); err == nil || !strings.Contains(err.Error(), "not the ARN") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func elliptic256() elliptic.Curve { return elliptic.P256() }
