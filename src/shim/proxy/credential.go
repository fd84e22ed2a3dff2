package main

import (
	"bytes"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"time"
)

// credentialSettings is an upstream credential as the broker hands it over (the credential
// message, or the reply to the proxy's credential call).
type credentialSettings struct {
	Token          *string `json:"token"`
	CertificatePem *string `json:"certificatePem"`
	KeyPem         *string `json:"keyPem"`
	ExpiresAt      *string `json:"expiresAt"`
}

// upstreamCredential is what a credential-mode listener shows the cluster: a bearer token, a
// client certificate with its software key, or both. It lives in memory only.
type upstreamCredential struct {
	token       string
	certificate *tls.Certificate
	expiresAt   time.Time // zero: the broker named no end, nor does a certificate
}

// String and GoString keep the secret out of any %v, %+v or %#v that ever meets a credential.
func (c *upstreamCredential) String() string   { return "upstream credential (redacted)" }
func (c *upstreamCredential) GoString() string { return c.String() }

// parseCredential checks a credential once. Its errors name the field at fault, never its
// content: a token or a key must not reach a log or a reply.
func parseCredential(s credentialSettings) (*upstreamCredential, error) {
	c := &upstreamCredential{}
	hasToken := s.Token != nil && *s.Token != ""
	hasCertificate := s.CertificatePem != nil && *s.CertificatePem != ""
	hasKey := s.KeyPem != nil && *s.KeyPem != ""
	switch {
	case !hasToken && !hasCertificate && !hasKey:
		return nil, errors.New("the credential has neither a token nor a certificatePem with its keyPem")
	case hasCertificate != hasKey:
		return nil, errors.New("the credential needs certificatePem and keyPem together")
	}
	if hasToken {
		if !headerSafeToken(*s.Token) {
			return nil, errors.New("the credential's token has characters an Authorization header cannot carry")
		}
		c.token = *s.Token
	}
	if hasCertificate {
		certificate, err := parseKeyPair([]byte(*s.CertificatePem), []byte(*s.KeyPem))
		if err != nil {
			return nil, err
		}
		c.certificate = certificate
		c.expiresAt = certificate.Leaf.NotAfter
	}
	if s.ExpiresAt != nil {
		expiresAt, err := time.Parse(time.RFC3339, *s.ExpiresAt)
		if err != nil {
			return nil, errors.New("the credential's expiresAt is not an RFC 3339 time")
		}
		// A certificate ending before the broker's expiresAt still ends the handshakes then.
		if c.expiresAt.IsZero() || expiresAt.Before(c.expiresAt) {
			c.expiresAt = expiresAt
		}
	}
	return c, nil
}

// headerSafeToken: visible ASCII only, so the token cannot split or end the header it is in.
func headerSafeToken(token string) bool {
	for i := 0; i < len(token); i++ {
		if token[i] <= ' ' || token[i] > '~' {
			return false
		}
	}
	return true
}

func parseKeyPair(chainPEM, keyPEM []byte) (*tls.Certificate, error) {
	chain := pemCertificates(chainPEM)
	if len(chain) == 0 {
		return nil, errors.New("the credential's certificatePem has no PEM certificate")
	}
	leaf, err := x509.ParseCertificate(chain[0])
	if err != nil {
		return nil, errors.New("the credential's certificatePem: its first certificate does not parse as X.509")
	}
	key, err := parsePrivateKey(keyPEM)
	if err != nil {
		return nil, err
	}
	public, ok := key.Public().(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !public.Equal(leaf.PublicKey) {
		return nil, errors.New("the credential's keyPem is not the key of the certificatePem's first certificate")
	}
	return &tls.Certificate{Certificate: chain, PrivateKey: key, Leaf: leaf}, nil
}

// parsePrivateKey reads the first private key block: PKCS#1 (RSA), SEC1 (EC) or PKCS#8.
func parsePrivateKey(keyPEM []byte) (crypto.Signer, error) {
	for rest := keyPEM; ; {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			return nil, errors.New("the credential's keyPem has no PEM private key (PKCS#1, PKCS#8 or SEC1 EC)")
		}
		if !bytes.HasSuffix([]byte(block.Type), []byte("PRIVATE KEY")) {
			continue
		}
		if _, encrypted := block.Headers["Proc-Type"]; encrypted || block.Type == "ENCRYPTED PRIVATE KEY" {
			return nil, errors.New("the credential's keyPem is encrypted: the broker must hand over the key itself")
		}
		var key any
		var err error
		switch block.Type {
		case "RSA PRIVATE KEY":
			key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
		case "EC PRIVATE KEY":
			key, err = x509.ParseECPrivateKey(block.Bytes)
		default:
			key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
		}
		// The parser's error is left out: it is about the key's bytes.
		if err != nil {
			return nil, fmt.Errorf("the credential's keyPem: its %s block does not parse", block.Type)
		}
		signer, ok := key.(crypto.Signer)
		if !ok {
			return nil, fmt.Errorf("the credential's keyPem holds a %T key, which cannot sign", key)
		}
		return signer, nil
	}
}

// sameCertificate: both show the cluster the same chain (or both none), so the connections
// already open still speak for the new credential.
func (c *upstreamCredential) sameCertificate(other *upstreamCredential) bool {
	var mine, theirs [][]byte
	if c != nil && c.certificate != nil {
		mine = c.certificate.Certificate
	}
	if other != nil && other.certificate != nil {
		theirs = other.certificate.Certificate
	}
	if len(mine) != len(theirs) {
		return false
	}
	for i := range mine {
		if !bytes.Equal(mine[i], theirs[i]) {
			return false
		}
	}
	return true
}
