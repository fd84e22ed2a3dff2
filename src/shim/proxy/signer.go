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
	"sync/atomic"
	"time"
)

// How long a handshake waits for the broker's signature: a PIN prompt can be on screen.
const signTimeout = 2 * time.Minute

// askFunc asks the broker to sign message with the profile's token key. handshake is what the
// broker needs to see that a TLS 1.3 handshake is with the profile's cluster (nil for TLS 1.2,
// whose message is the transcript itself).
type askFunc func(ctx context.Context, scheme string, message []byte, handshake map[string]string) ([]byte, error)

// remoteSigner is the token's key as crypto/tls sees it: every signature is asked of the
// broker, which signs on the token. It is a crypto.MessageSigner, so crypto/tls hands over the
// whole CertificateVerify message and the broker can check that it signs nothing else.
type remoteSigner struct {
	ctx    context.Context // the handshake's: a revoke or a closed pipe ends the wait
	public crypto.PublicKey
	ask    askFunc
	// handshake is the evidence of the handshake being signed for; nil for TLS 1.2.
	handshake func() map[string]string
	// refusal keeps the broker's answer: crypto/tls flattens a signer's error into a string,
	// and kubectl should see the broker's status code and words.
	refusal *atomic.Pointer[brokerError]
}

func (s *remoteSigner) Public() crypto.PublicKey { return s.public }

func (s *remoteSigner) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) {
	return nil, errors.New("kubecred-proxy needs the whole message to sign, not a digest (crypto.MessageSigner): build it with Go 1.25 or later")
}

func (s *remoteSigner) SignMessage(_ io.Reader, message []byte, opts crypto.SignerOpts) ([]byte, error) {
	scheme, err := schemeFor(s.public, opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(s.ctx, signTimeout)
	defer cancel()
	var handshake map[string]string
	if s.handshake != nil {
		handshake = s.handshake()
	}
	signature, err := s.ask(ctx, scheme, message, handshake)
	if err != nil {
		var refusal *brokerError
		if errors.As(err, &refusal) && s.refusal != nil {
			s.refusal.Store(refusal)
		}
		return nil, err
	}
	if key, ok := s.public.(*ecdsa.PublicKey); ok {
		if size := (key.Curve.Params().BitSize + 7) / 8; len(signature) != 2*size {
			return nil, fmt.Errorf("the token's ECDSA signature is %d bytes, not r||s of 2x%d", len(signature), size)
		}
		if signature, err = rawToDER(signature); err != nil {
			return nil, err
		}
	}
	// A bad signature would only come back as the server's "decrypt_error" alert; checked
	// here it names the cause (a certificate that is not the token key's, a wrong PSS salt).
	if err := verifySignature(s.public, opts, message, signature); err != nil {
		return nil, fmt.Errorf("the token's signature (%s) does not verify with the certificate's public key: is the certificate the token key's? (%v)", scheme, err)
	}
	return signature, nil
}

// schemeFor names the TLS signature scheme crypto/tls chose, as the broker's protocol does.
func schemeFor(public crypto.PublicKey, opts crypto.SignerOpts) (string, error) {
	var hash string
	switch opts.HashFunc() {
	case crypto.SHA256:
		hash = "sha256"
	case crypto.SHA384:
		hash = "sha384"
	case crypto.SHA512:
		hash = "sha512"
	default:
		return "", fmt.Errorf("kubecred-proxy cannot ask the token to sign with hash %v", opts.HashFunc())
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
	return "", fmt.Errorf("the token's certificate has a %T key: only RSA and ECDSA keys can sign", public)
}

// verifySignature checks signature over message the way a TLS 1.3 peer does (RFC 8446
// 4.2.3: a PSS salt as long as the hash).
func verifySignature(public crypto.PublicKey, opts crypto.SignerOpts, message, signature []byte) error {
	h := opts.HashFunc().New()
	h.Write(message)
	digest := h.Sum(nil)
	switch key := public.(type) {
	case *rsa.PublicKey:
		if _, pss := opts.(*rsa.PSSOptions); pss {
			return rsa.VerifyPSS(key, opts.HashFunc(), digest, signature, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash})
		}
		return rsa.VerifyPKCS1v15(key, opts.HashFunc(), digest, signature)
	case *ecdsa.PublicKey:
		if !ecdsa.VerifyASN1(key, digest, signature) {
			return errors.New("ECDSA verification failed")
		}
		return nil
	}
	return fmt.Errorf("unsupported key type %T", public)
}

// brokerAsk is a profile's line to the broker's sign request over the control channel.
func brokerAsk(ctl *controller, profile string) askFunc {
	return func(ctx context.Context, scheme string, message []byte, handshake map[string]string) ([]byte, error) {
		request := map[string]any{"profile": profile, "scheme": scheme, "message": base64.StdEncoding.EncodeToString(message)}
		if handshake != nil {
			request["handshake"] = handshake
		}
		raw, err := ctl.call(ctx, "sign", request)
		if err != nil {
			return nil, err
		}
		var answer struct {
			Signature string `json:"signature"`
		}
		if err := json.Unmarshal(raw, &answer); err != nil {
			return nil, fmt.Errorf("the broker's sign reply: %v", err)
		}
		signature, err := base64.StdEncoding.DecodeString(answer.Signature)
		if err != nil || len(signature) == 0 {
			return nil, errors.New("the broker's sign reply has no base64 signature")
		}
		return signature, nil
	}
}
