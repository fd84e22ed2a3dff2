package main

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// How long a handshake waits for the broker's signature: a PIN prompt can be on screen.
const signTimeout = 2 * time.Minute

// remoteSigner is the token's key as crypto/tls sees it: every signature is asked of the
// broker, which signs on the token. It is a MessageSigner, so crypto/tls hands over the whole
// CertificateVerify message and the broker can check what it signs.
type remoteSigner struct {
	public  crypto.PublicKey
	profile string
	ask     func(ctx context.Context, profile, scheme string, message []byte) ([]byte, error)
	// failed keeps the broker's last refusal: crypto/tls flattens it into a string.
	failed func(err error)
}

func (s *remoteSigner) Public() crypto.PublicKey { return s.public }

func (s *remoteSigner) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) {
	return nil, errors.New("kubecred-proxy signs whole messages only (crypto.MessageSigner)")
}

func (s *remoteSigner) SignMessage(_ io.Reader, message []byte, opts crypto.SignerOpts) ([]byte, error) {
	scheme, err := schemeFor(s.public, opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), signTimeout)
	defer cancel()
	signature, err := s.ask(ctx, s.profile, scheme, message)
	if err != nil {
		s.failed(err)
		return nil, err
	}
	if _, ok := s.public.(*ecdsa.PublicKey); ok {
		return rawToDER(signature)
	}
	return signature, nil
}

// schemeFor names the TLS signature scheme crypto/tls chose, as the broker's protocol does.
func schemeFor(public crypto.PublicKey, opts crypto.SignerOpts) (string, error) {
	hashes := map[crypto.Hash]string{crypto.SHA256: "sha256", crypto.SHA384: "sha384", crypto.SHA512: "sha512"}
	hash, ok := hashes[opts.HashFunc()]
	if !ok {
		return "", fmt.Errorf("unsupported hash %v", opts.HashFunc())
	}
	switch public.(type) {
	case *rsa.PublicKey:
		if _, pss := opts.(*rsa.PSSOptions); pss {
			return "rsa_pss_" + hash, nil
		}
		return "rsa_pkcs1_" + hash, nil
	case *ecdsa.PublicKey:
		return "ecdsa_" + hash, nil
	}
	return "", fmt.Errorf("unsupported key type %T", public)
}

// askBroker is the signer's line to the broker over the control channel.
func askBroker(ctl *controller) func(ctx context.Context, profile, scheme string, message []byte) ([]byte, error) {
	return func(ctx context.Context, profile, scheme string, message []byte) ([]byte, error) {
		raw, err := ctl.call(ctx, "sign", map[string]any{"profile": profile, "scheme": scheme, "message": base64.StdEncoding.EncodeToString(message)})
		if err != nil {
			return nil, err
		}
		var answer struct {
			Signature string `json:"signature"`
		}
		if err := json.Unmarshal(raw, &answer); err != nil {
			return nil, err
		}
		return base64.StdEncoding.DecodeString(answer.Signature)
	}
}
