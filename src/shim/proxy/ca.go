package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/url"
	"time"
)

// localCA issues the listeners' server certificates and kubectl's short-lived client
// certificates. It is name-constrained to loopback: even if its key leaked, it could not
// vouch for any other host. kubeconfigs embed it, so the broker stores it and hands it back.
type localCA struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	certPEM string
	keyPEM  string
	issued  *issuedCerts
}

func newLocalCA() (*localCA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	_, v4, _ := net.ParseCIDR("127.0.0.0/8")
	_, v6, _ := net.ParseCIDR("::1/128")
	now := time.Now()
	template := &x509.Certificate{
		SerialNumber:                randomSerial(),
		Subject:                     pkix.Name{CommonName: "Kubecred local CA"},
		NotBefore:                   now.Add(-time.Hour), // a clock a little behind still trusts it
		NotAfter:                    now.AddDate(10, 0, 0),
		IsCA:                        true,
		BasicConstraintsValid:       true,
		MaxPathLenZero:              true,
		KeyUsage:                    x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		PermittedDNSDomainsCritical: true,
		PermittedDNSDomains:         []string{"localhost"},
		PermittedIPRanges:           []*net.IPNet{v4, v6},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	return caFromParts(der, key)
}

// loadLocalCA takes back the CA the broker stored (keyPem is PKCS#8).
func loadLocalCA(certPEM, keyPEM string) (*localCA, error) {
	certBlock, _ := pem.Decode([]byte(certPEM))
	keyBlock, _ := pem.Decode([]byte(keyPEM))
	if certBlock == nil || certBlock.Type != "CERTIFICATE" || keyBlock == nil {
		return nil, errors.New("the stored local CA is not a PEM certificate and key: delete it from the secret store and restart Kubecred to make a new one")
	}
	parsed, err := x509.ParsePKCS8PrivateKey(keyBlock.Bytes)
	if err != nil {
		return nil, errors.New("the stored local CA key is not PKCS#8: delete it from the secret store and restart Kubecred to make a new one")
	}
	key, ok := parsed.(*ecdsa.PrivateKey)
	if !ok {
		return nil, errors.New("the stored local CA key is not ECDSA")
	}
	ca, err := caFromParts(certBlock.Bytes, key)
	if err != nil {
		return nil, err
	}
	if !ca.cert.IsCA || !key.PublicKey.Equal(ca.cert.PublicKey) {
		return nil, errors.New("the stored local CA certificate is not a CA, or not for the stored key")
	}
	return ca, nil
}

func caFromParts(der []byte, key *ecdsa.PrivateKey) (*localCA, error) {
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &localCA{
		cert:    cert,
		key:     key,
		certPEM: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		keyPEM:  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})),
		issued:  newIssuedCerts(),
	}, nil
}

// profileURI names a profile in a client certificate's URI SAN; a listener admits only its
// own. It has a host ("localhost") because Go's verifier (1.26) refuses any host-less URI SAN
// under a CA with name constraints, whatever those constraints are; the CA sets no URI
// constraint, so this URI passes, and localhost would fit a future DNS-style check too.
func profileURI(profile string) string {
	return "kubecred://localhost/profile/" + url.PathEscape(profile)
}

// namesProfile reports whether the certificate was issued for that profile.
func namesProfile(cert *x509.Certificate, profile string) bool {
	want := profileURI(profile)
	for _, uri := range cert.URIs {
		if uri.String() == want {
			return true
		}
	}
	return false
}

type issuedCert struct {
	certPEM, keyPEM string
	notAfter        time.Time
	serial          *big.Int
}

// issueClient makes kubectl's certificate for one profile (a fresh key each time).
func (ca *localCA) issueClient(profile string, notBefore, notAfter time.Time) (issuedCert, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return issuedCert{}, err
	}
	uri, err := url.Parse(profileURI(profile))
	if err != nil {
		return issuedCert{}, err
	}
	notAfter = notAfter.Truncate(time.Second) // what the certificate can hold
	template := &x509.Certificate{
		SerialNumber: randomSerial(),
		// The OU is a label for people (openssl, Node's X509Certificate.subject) and for the
		// checks written before the URI SAN; the listener trusts the URI SAN only.
		Subject:     pkix.Name{CommonName: "kubecred-proxy", OrganizationalUnit: []string{"kubecred-profile:" + profile}},
		URIs:        []*url.URL{uri},
		NotBefore:   notBefore,
		NotAfter:    notAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return issuedCert{}, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return issuedCert{}, err
	}
	ca.issued.remember(profile, der, notAfter, time.Now())
	return issuedCert{
		certPEM:  string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		keyPEM:   string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})),
		notAfter: notAfter,
		serial:   template.SerialNumber,
	}, nil
}

// serverCertificate is a listener's certificate for 127.0.0.1, ::1 and localhost.
func (ca *localCA) serverCertificate(validFor time.Duration) (*tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	notAfter := now.Add(validFor)
	if notAfter.After(ca.cert.NotAfter) {
		notAfter = ca.cert.NotAfter
	}
	template := &x509.Certificate{
		SerialNumber: randomSerial(),
		Subject:      pkix.Name{CommonName: "kubecred-proxy"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// randomSerial is 128 random bits (never zero, which some parsers refuse).
func randomSerial() *big.Int {
	limit := new(big.Int).Lsh(big.NewInt(1), 128)
	for {
		n, err := rand.Int(rand.Reader, limit)
		if err != nil {
			panic(err) // crypto/rand does not fail on supported platforms
		}
		if n.Sign() > 0 {
			return n
		}
	}
}
