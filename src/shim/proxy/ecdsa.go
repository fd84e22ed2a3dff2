package main

import (
	"encoding/asn1"
	"errors"
	"math/big"
)

// rawToDER turns PKCS#11's ECDSA signature (r and s, each half of it) into the ASN.1
// SEQUENCE{INTEGER r, INTEGER s} that TLS and crypto/ecdsa expect; encoding/asn1 writes
// minimal, sign-padded integers. Handed over raw, the server rejects the handshake.
func rawToDER(raw []byte) ([]byte, error) {
	if len(raw) == 0 || len(raw)%2 != 0 {
		return nil, errors.New("an ECDSA signature from the token must be r||s of two equal halves")
	}
	half := len(raw) / 2
	r := new(big.Int).SetBytes(raw[:half])
	s := new(big.Int).SetBytes(raw[half:])
	if r.Sign() == 0 || s.Sign() == 0 {
		return nil, errors.New("an ECDSA signature from the token has a zero r or s")
	}
	return asn1.Marshal(struct{ R, S *big.Int }{r, s})
}
