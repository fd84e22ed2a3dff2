package main

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

var testRSAKey = func() *rsa.PrivateKey {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return key
}()

func TestSchemeNamesFollowKeyAndOptions(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	cases := []struct {
		key  crypto.PublicKey
		opts crypto.SignerOpts
		want string
	}{
		{&testRSAKey.PublicKey, &rsa.PSSOptions{Hash: crypto.SHA256}, "rsa_pss_sha256"},
		{&testRSAKey.PublicKey, &rsa.PSSOptions{Hash: crypto.SHA384}, "rsa_pss_sha384"},
		{&testRSAKey.PublicKey, &rsa.PSSOptions{Hash: crypto.SHA512}, "rsa_pss_sha512"},
		{&testRSAKey.PublicKey, crypto.SHA256, "rsa_pkcs1_sha256"},
		{&testRSAKey.PublicKey, crypto.SHA384, "rsa_pkcs1_sha384"},
		{&testRSAKey.PublicKey, crypto.SHA512, "rsa_pkcs1_sha512"},
		{&ec.PublicKey, crypto.SHA256, "ecdsa_sha256"},
		{&ec.PublicKey, crypto.SHA384, "ecdsa_sha384"},
		{&ec.PublicKey, crypto.SHA512, "ecdsa_sha512"},
	}
	for _, c := range cases {
		if got, err := schemeFor(c.key, c.opts); err != nil || got != c.want {
			t.Errorf("%T %v: %q %v, want %q", c.key, c.opts, got, err, c.want)
		}
	}
	if _, err := schemeFor(&ec.PublicKey, crypto.SHA1); err == nil {
		t.Error("SHA-1 was given a scheme")
	}
}

// crypto/tls must never reach the digest path: the broker needs the message to check it.
func TestSignWithADigestIsRefused(t *testing.T) {
	s := &remoteSigner{ctx: context.Background(), public: &testRSAKey.PublicKey, ask: func(context.Context, string, []byte, map[string]string) ([]byte, error) {
		t.Fatal("the broker was asked")
		return nil, nil
	}}
	if _, err := s.Sign(rand.Reader, make([]byte, 32), crypto.SHA256); err == nil || !strings.Contains(err.Error(), "whole message") {
		t.Fatalf("Sign(digest): %v", err)
	}
	var _ crypto.MessageSigner = s
}

func TestSignMessageSendsTheWholeMessageAndConvertsECDSA(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	message := append(append([]byte(nil), clientVerifyPrefix...), bytes.Repeat([]byte{7}, 48)...)
	var askedScheme string
	var askedMessage []byte
	s := &remoteSigner{ctx: context.Background(), public: &key.PublicKey, ask: func(_ context.Context, scheme string, m []byte, _ map[string]string) ([]byte, error) {
		askedScheme, askedMessage = scheme, m
		return tokenSign(key, scheme, m)
	}}
	signature, err := s.SignMessage(rand.Reader, message, crypto.SHA384)
	if err != nil {
		t.Fatal(err)
	}
	if askedScheme != "ecdsa_sha384" || !bytes.Equal(askedMessage, message) {
		t.Fatalf("asked %q with %d bytes", askedScheme, len(askedMessage))
	}
	digest := crypto.SHA384.New()
	digest.Write(message)
	if !ecdsa.VerifyASN1(&key.PublicKey, digest.Sum(nil), signature) {
		t.Fatal("the signature handed to crypto/tls is not DER over the message")
	}
}

// RFC 8446 wants a PSS salt as long as the hash; a token set to another length would make
// every handshake fail with a bare decrypt_error, so the proxy names it.
func TestSignMessageRefusesAWrongPSSSalt(t *testing.T) {
	message := append(append([]byte(nil), clientVerifyPrefix...), bytes.Repeat([]byte{1}, 32)...)
	for _, salt := range []int{0, rsa.PSSSaltLengthAuto} {
		s := &remoteSigner{ctx: context.Background(), public: &testRSAKey.PublicKey, ask: func(_ context.Context, _ string, m []byte, _ map[string]string) ([]byte, error) {
			digest := crypto.SHA256.New()
			digest.Write(m)
			return rsa.SignPSS(rand.Reader, testRSAKey, crypto.SHA256, digest.Sum(nil), &rsa.PSSOptions{SaltLength: salt})
		}}
		if _, err := s.SignMessage(rand.Reader, message, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash, Hash: crypto.SHA256}); err == nil || !strings.Contains(err.Error(), "does not verify") {
			t.Fatalf("salt %d: %v", salt, err)
		}
	}
}

func TestSignMessageRefusesDERFromTheBroker(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	s := &remoteSigner{ctx: context.Background(), public: &key.PublicKey, ask: func(_ context.Context, _ string, m []byte, _ map[string]string) ([]byte, error) {
		digest := crypto.SHA256.New()
		digest.Write(m)
		return ecdsa.SignASN1(rand.Reader, key, digest.Sum(nil)) // DER, not what PKCS#11 gives
	}}
	if _, err := s.SignMessage(rand.Reader, []byte("m"), crypto.SHA256); err == nil || !strings.Contains(err.Error(), "not r||s") {
		t.Fatalf("%v", err)
	}
}

// crypto/tls turns the signer's error into a string; the refusal (and its status) is kept
// beside it for the error handler.
func TestSignMessageKeepsTheBrokerRefusal(t *testing.T) {
	var kept atomic.Pointer[brokerError]
	s := &remoteSigner{ctx: context.Background(), public: &testRSAKey.PublicKey, refusal: &kept, ask: func(context.Context, string, []byte, map[string]string) ([]byte, error) {
		return nil, &brokerError{message: "wrong PIN for token card: run the command again", status: 401}
	}}
	_, err := s.SignMessage(rand.Reader, []byte("m"), &rsa.PSSOptions{Hash: crypto.SHA256})
	var refusal *brokerError
	if !errors.As(err, &refusal) || kept.Load() == nil || kept.Load().status != 401 {
		t.Fatalf("%v, kept %v", err, kept.Load())
	}
}
