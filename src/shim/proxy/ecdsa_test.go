package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"io"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"
)

// PKCS#11 answers r||s; TLS wants DER. Sign the raw way with a real key and check that the
// converted signature verifies, and that the raw form does not.
func TestRawECDSASignaturesBecomeDER(t *testing.T) {
	for _, curve := range []elliptic.Curve{elliptic.P256(), elliptic.P384(), elliptic.P521()} {
		key, err := ecdsa.GenerateKey(curve, rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		digest := sha256.Sum256([]byte("TLS 1.3, client CertificateVerify"))
		for i := 0; i < 20; i++ { // some r or s with a high bit or a leading zero byte
			raw, err := rawECDSA(key, digest[:])
			if err != nil {
				t.Fatal(err)
			}
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
}

// DER integers are minimal and sign-padded: a high bit gets a 0x00, leading zeros go.
func TestRawToDERWritesMinimalIntegers(t *testing.T) {
	raw := make([]byte, 64)
	raw[0] = 0x80 // r = 0x80 followed by zeros: needs a padding byte
	raw[63] = 0x01
	der, err := rawToDER(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := "3026" + "0221" + "0080" + strings.Repeat("00", 31) + "020101"
	if got := hex.EncodeToString(der); got != want {
		t.Fatalf("DER\n got %s\nwant %s", got, want)
	}
}

func TestRawECDSASignatureOfOddLengthOrZeroIsRefused(t *testing.T) {
	for _, raw := range [][]byte{nil, {1, 2, 3}, make([]byte, 65), make([]byte, 64)} {
		if _, err := rawToDER(raw); err == nil {
			t.Fatalf("%x was accepted", raw)
		}
	}
}

// rawSigner is a token key whose r||s goes to crypto/tls as it comes, or converted.
type rawSigner struct {
	key     *ecdsa.PrivateKey
	convert bool
}

func (s rawSigner) Public() crypto.PublicKey { return &s.key.PublicKey }

func (s rawSigner) Sign(_ io.Reader, digest []byte, _ crypto.SignerOpts) ([]byte, error) {
	raw, err := rawECDSA(s.key, digest)
	if err != nil || !s.convert {
		return raw, err
	}
	return rawToDER(raw)
}

// The conversion is what makes an EC token work at all: the same handshake with the raw
// signature is refused by the server.
func TestUnconvertedECDSASignatureFailsTheHandshake(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	template := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "token"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, _ := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	server := &tls.Config{MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	handshake := func(convert bool) error {
		a, b := net.Pipe()
		defer a.Close()
		defer b.Close()
		serverDone := make(chan error, 1)
		go func() {
			conn := tls.Server(b, server)
			err := conn.Handshake()
			if err == nil {
				// TLS 1.3: the client learns of a refused certificate on its first read.
				_, err = conn.Write([]byte("x"))
			}
			serverDone <- err
			_ = conn.Close()
		}()
		client := tls.Client(a, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: rawSigner{key, convert}}}})
		err := client.Handshake()
		if err == nil {
			_, err = client.Read(make([]byte, 1))
		}
		if serverErr := <-serverDone; err == nil {
			err = serverErr
		}
		return err
	}
	if err := handshake(false); err == nil {
		t.Fatal("a raw r||s signature passed the handshake: the conversion would not matter")
	} else {
		t.Logf("raw r||s: %v", err)
	}
	if err := handshake(true); err != nil {
		t.Fatalf("the converted signature failed the handshake: %v", err)
	}
}
