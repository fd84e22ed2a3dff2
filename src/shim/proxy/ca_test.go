package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/asn1"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"
)

func TestLocalCAIsNameConstrainedToLoopback(t *testing.T) {
	ca, err := newLocalCA()
	if err != nil {
		t.Fatal(err)
	}
	c := ca.cert
	if c.Subject.CommonName != "Kubecred local CA" || !c.IsCA || !c.MaxPathLenZero || c.MaxPathLen != 0 || c.KeyUsage != x509.KeyUsageCertSign|x509.KeyUsageCRLSign {
		t.Fatalf("CA basics: %+v", c.Subject)
	}
	if years := c.NotAfter.Sub(time.Now()).Hours() / 24 / 365; years < 9.9 || years > 10.1 {
		t.Fatalf("valid for %.1f years", years)
	}
	if len(c.PermittedDNSDomains) != 1 || c.PermittedDNSDomains[0] != "localhost" || len(c.PermittedIPRanges) != 2 ||
		c.PermittedIPRanges[0].String() != "127.0.0.0/8" || c.PermittedIPRanges[1].String() != "::1/128" {
		t.Fatalf("constraints %v %v", c.PermittedDNSDomains, c.PermittedIPRanges)
	}
	nameConstraints := asn1.ObjectIdentifier{2, 5, 29, 30}
	critical := false
	for _, ext := range c.Extensions {
		critical = critical || (ext.Id.Equal(nameConstraints) && ext.Critical)
	}
	if !critical {
		t.Fatal("the name constraints are not critical")
	}
	if key, ok := c.PublicKey.(*ecdsa.PublicKey); !ok || key.Curve != elliptic.P256() {
		t.Fatalf("CA key %T", c.PublicKey)
	}
	block, _ := pem.Decode([]byte(ca.keyPEM))
	if block == nil || block.Type != "PRIVATE KEY" {
		t.Fatal("keyPem is not PKCS#8 PEM")
	}
	if _, err := x509.ParsePKCS8PrivateKey(block.Bytes); err != nil {
		t.Fatal(err)
	}

	// The constraints hold: the CA's key cannot vouch for another host.
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{SerialNumber: big.NewInt(9), DNSNames: []string{"bank.example"}, NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, c, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	foreign, _ := x509.ParseCertificate(der)
	roots := x509.NewCertPool()
	roots.AddCert(c)
	if _, err := foreign.Verify(x509.VerifyOptions{Roots: roots, DNSName: "bank.example"}); err == nil {
		t.Fatal("the local CA vouched for bank.example")
	}
	server, err := ca.serverCertificate(serverCertValidity)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"127.0.0.1", "::1", "localhost"} {
		if _, err := server.Leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: name}); err != nil {
			t.Errorf("the listener's certificate for %s: %v", name, err)
		}
	}
}

func TestStoredLocalCALoadsBackAndAMismatchIsRefused(t *testing.T) {
	ca, _ := newLocalCA()
	other, _ := newLocalCA()
	reloaded, err := loadLocalCA(ca.certPEM, ca.keyPEM)
	if err != nil || !reloaded.cert.Equal(ca.cert) || reloaded.keyPEM != ca.keyPEM {
		t.Fatalf("the stored CA does not load back: %v", err)
	}
	if _, err := loadLocalCA(ca.certPEM, other.keyPEM); err == nil {
		t.Fatal("a CA certificate with another CA's key was loaded")
	}
	if _, err := loadLocalCA("junk", ca.keyPEM); err == nil || !strings.Contains(err.Error(), "restart Kubecred") {
		t.Fatalf("junk: %v", err)
	}
}

func TestIssuedClientCertificateNamesItsProfileOnly(t *testing.T) {
	ca, _ := newLocalCA()
	now := time.Now()
	issued, err := ca.issueClient("team a/b", now.Add(-time.Minute), now.Add(10*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode([]byte(issued.certPEM))
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	// The verification kubecred-proxy's listener runs, name constraints included.
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Fatalf("kubectl's certificate does not verify: %v", err)
	}
	if leaf.Subject.CommonName != "kubecred-proxy" || len(leaf.URIs) != 1 || leaf.URIs[0].String() != "kubecred://localhost/profile/team%20a%2Fb" {
		t.Fatalf("subject %v, URIs %v", leaf.Subject, leaf.URIs)
	}
	if len(leaf.ExtKeyUsage) != 1 || leaf.ExtKeyUsage[0] != x509.ExtKeyUsageClientAuth {
		t.Fatalf("extended key usage %v", leaf.ExtKeyUsage)
	}
	if d := now.Add(-time.Minute).Sub(leaf.NotBefore); d < 0 || d > time.Second {
		t.Fatalf("not before %v", leaf.NotBefore)
	}
	if !leaf.NotAfter.Equal(issued.notAfter) || issued.notAfter.Sub(now) > 10*time.Minute || issued.notAfter.Sub(now) < 9*time.Minute {
		t.Fatalf("not after %v", leaf.NotAfter)
	}
	if leaf.SerialNumber.BitLen() > 128 || leaf.SerialNumber.Sign() <= 0 || leaf.SerialNumber.Cmp(issued.serial) != 0 {
		t.Fatalf("serial %v", leaf.SerialNumber)
	}
	if _, ok := leaf.PublicKey.(*ecdsa.PublicKey); !ok {
		t.Fatalf("key %T", leaf.PublicKey)
	}
	if !namesProfile(leaf, "team a/b") || namesProfile(leaf, "team a") || namesProfile(leaf, "team a%2Fb") || namesProfile(leaf, "b") {
		t.Fatal("namesProfile matches the wrong profiles")
	}
	if ou := leaf.Subject.OrganizationalUnit; len(ou) != 1 || ou[0] != "kubecred-profile:team a/b" {
		t.Fatalf("the readable label %v", ou)
	}
	// The label is not what admits a certificate: the URI SAN is.
	b, _ := ca.issueClient("b", now.Add(-time.Minute), now.Add(time.Minute))
	bBlock, _ := pem.Decode([]byte(b.certPEM))
	bLeaf, _ := x509.ParseCertificate(bBlock.Bytes)
	bLeaf.Subject.OrganizationalUnit = []string{"kubecred-profile:team a/b"}
	if namesProfile(bLeaf, "team a/b") {
		t.Fatal("the OU label admitted a certificate of another profile")
	}
	// A certificate of another CA with the same URI is not the local CA's.
	stranger, _ := newLocalCA()
	forged, _ := stranger.issueClient("team a/b", now.Add(-time.Minute), now.Add(time.Minute))
	forgedBlock, _ := pem.Decode([]byte(forged.certPEM))
	forgedLeaf, _ := x509.ParseCertificate(forgedBlock.Bytes)
	if _, err := forgedLeaf.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err == nil {
		t.Fatal("another CA's certificate verified")
	}
}
