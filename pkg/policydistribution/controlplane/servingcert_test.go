package controlplane

import (
	"bytes"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
)

func TestServingCertIsCreatedOnceAndVerifies(t *testing.T) {
	dir := t.TempDir()
	first, err := EnsureServingCert(dir, []string{"10.1.2.3", "policy-controller.example"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := EnsureServingCert(dir, []string{"10.1.2.3"})
	if err != nil || !bytes.Equal(first.Certificate[0], again.Certificate[0]) {
		t.Fatalf("a second start made another certificate (%v): agents would stop trusting it", err)
	}
	caPEM, err := os.ReadFile(filepath.Join(dir, CAFile))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	leaf, err := x509.ParseCertificate(first.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"10.1.2.3", "policy-controller.example"} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: host}); err != nil {
			t.Errorf("the certificate does not verify for %s: %v", host, err)
		}
	}
	if info, _ := os.Stat(filepath.Join(dir, KeyFile)); info.Mode().Perm() != 0o600 {
		t.Errorf("the key is readable by others: %v", info.Mode())
	}
}
