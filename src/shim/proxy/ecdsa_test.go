package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"testing"
)

// PKCS#11 answers r||s; TLS wants DER. Sign the raw way with a real key and check that the
// conversion verifies, and that the raw form does not.
func TestRawECDSASignaturesBecomeDER(t *testing.T) {
	for _, curve := range []elliptic.Curve{elliptic.P256(), elliptic.P384()} {
		key, err := ecdsa.GenerateKey(curve, rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		digest := sha256.Sum256([]byte("TLS 1.3, client CertificateVerify"))
		r, s, err := ecdsa.Sign(rand.Reader, key, digest[:])
		if err != nil {
			t.Fatal(err)
		}
		size := (curve.Params().BitSize + 7) / 8
		raw := make([]byte, 2*size)
		r.FillBytes(raw[:size])
		s.FillBytes(raw[size:])
		if ecdsa.VerifyASN1(&key.PublicKey, digest[:], raw) {
			t.Fatalf("%s: a raw r||s verified as DER; the conversion would not matter", curve.Params().Name)
		}
		der, err := rawToDER(raw)
		if err != nil {
			t.Fatal(err)
		}
		if !ecdsa.VerifyASN1(&key.PublicKey, digest[:], der) {
			t.Fatalf("%s: the converted signature does not verify", curve.Params().Name)
		}
	}
}

func TestRawECDSASignatureOfOddLengthIsRefused(t *testing.T) {
	for _, raw := range [][]byte{nil, {1, 2, 3}} {
		if _, err := rawToDER(raw); err == nil {
			t.Fatalf("%x was accepted", raw)
		}
	}
}
