package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestCredentialsParseEveryKeyFormatAndNeverQuoteASecret(t *testing.T) {
	c := newCluster(t, "p256")
	for _, format := range []string{"pkcs1", "sec1", "pkcs8"} {
		certPEM, keyPEM := c.clientPEM(t, "user-"+format, format)
		parsed, err := parseCredential(credentialSettings{CertificatePem: &certPEM, KeyPem: &keyPEM})
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if parsed.certificate.Leaf.Subject.CommonName != "user-"+format || !parsed.expiresAt.Equal(parsed.certificate.Leaf.NotAfter) {
			t.Errorf("%s: %+v", format, parsed)
		}
	}

	token := "secret-token-value"
	soon := time.Now().Add(time.Minute).UTC().Format(time.RFC3339)
	parsed, err := parseCredential(credentialSettings{Token: &token, ExpiresAt: &soon})
	if err != nil || parsed.token != token || parsed.certificate != nil || parsed.expiresAt.IsZero() {
		t.Fatalf("token: %+v %v", parsed, err)
	}
	if printed := fmt.Sprintf("%v %+v %#v %s", parsed, parsed, parsed, []*upstreamCredential{parsed}); strings.Contains(printed, token) {
		t.Fatalf("a printed credential shows its token: %s", printed)
	}
	// Both: the earlier end counts.
	certPEM, keyPEM := c.clientPEM(t, "both", "sec1")
	parsed, err = parseCredential(credentialSettings{Token: &token, CertificatePem: &certPEM, KeyPem: &keyPEM, ExpiresAt: &soon})
	if err != nil || parsed.token != token || parsed.certificate == nil || parsed.expiresAt.Format(time.RFC3339) != soon {
		t.Fatalf("both: %+v %v", parsed, err)
	}

	_, otherKey := c.clientPEM(t, "other", "sec1")
	secretKey := strings.Replace(keyPEM, "-----END", "junk-secret\n-----END", 1)
	withNewline := "abc\r\nInjected: 1"
	badTime := "soon"
	for name, c := range map[string]struct {
		settings credentialSettings
		field    string
	}{
		"nothing":              {credentialSettings{}, "neither a token"},
		"certificate alone":    {credentialSettings{CertificatePem: &certPEM}, "together"},
		"key alone":            {credentialSettings{KeyPem: &keyPEM}, "together"},
		"token with a newline": {credentialSettings{Token: &withNewline}, "token"},
		"no certificate":       {credentialSettings{CertificatePem: &token, KeyPem: &keyPEM}, "certificatePem"},
		"not the key":          {credentialSettings{CertificatePem: &certPEM, KeyPem: &otherKey}, "keyPem"},
		"a key that is no key": {credentialSettings{CertificatePem: &certPEM, KeyPem: &secretKey}, "keyPem"},
		"a key in no PEM":      {credentialSettings{CertificatePem: &certPEM, KeyPem: &token}, "keyPem"},
		"expiresAt is no time": {credentialSettings{Token: &token, ExpiresAt: &badTime}, "expiresAt"},
	} {
		_, err := parseCredential(c.settings)
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: %v, want an error naming %s", name, err, c.field)
			continue
		}
		for _, secret := range []string{token, "secret", "Injected", "MII", "BEGIN"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%s: the error quotes the credential: %v", name, err)
			}
		}
	}
}
