package main

import (
	"crypto/x509"
	"encoding/pem"
	"testing"
	"time"
)

func TestIssuedClientCertificateVerifiesAgainstTheLocalCA(t *testing.T) {
	ca, err := newLocalCA()
	if err != nil {
		t.Fatal(err)
	}
	certPEM, _, notAfter, err := ca.issueClient("prod", 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode([]byte(certPEM))
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Fatalf("kubectl's certificate does not verify: %v", err)
	}
	if got := leaf.Subject.OrganizationalUnit; len(got) != 1 || got[0] != "kubecred-profile:prod" {
		t.Fatalf("profile %q", got)
	}
	if time.Until(notAfter) > 10*time.Minute || time.Until(notAfter) < 9*time.Minute {
		t.Fatalf("not after %v", notAfter)
	}
	reloaded, err := loadLocalCA(ca.certPEM, ca.keyPEM)
	if err != nil || !reloaded.cert.Equal(ca.cert) {
		t.Fatalf("the stored CA does not load back: %v", err)
	}
}
