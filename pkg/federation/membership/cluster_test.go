package membership

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/client-go/rest"
)

func TestClusterServer(t *testing.T) {
	tests := []struct {
		host, want, wantErr string
	}{
		{host: "https://127.0.0.1:6443", want: "https://127.0.0.1:6443"},
		{host: "127.0.0.1:6443", want: "https://127.0.0.1:6443"},
		{host: "http://127.0.0.1:8080", wantErr: "is not https"},
		{host: "", wantErr: "cannot read the API server address"},
	}
	for _, tt := range tests {
		got, err := cluster("c", tt.host).Server()
		errMatches(t, err, tt.wantErr)
		if got != tt.want {
			t.Errorf("Server(%q) = %q, want %q", tt.host, got, tt.want)
		}
	}
}

func TestClusterCA(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(file, []byte("from-file"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		tls     rest.TLSClientConfig
		want    string
		wantErr string
	}{
		{name: "inline data", tls: rest.TLSClientConfig{CAData: []byte("inline"), CAFile: file}, want: "inline"},
		{name: "file", tls: rest.TLSClientConfig{CAFile: file}, want: "from-file"},
		{name: "missing file", tls: rest.TLSClientConfig{CAFile: file + ".gone"}, wantErr: "reading the certificate authority"},
		{name: "none", tls: rest.TLSClientConfig{Insecure: true}, wantErr: "has no certificate authority"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Cluster{Name: "c", Config: &rest.Config{Host: "https://x", TLSClientConfig: tt.tls}}
			got, err := c.CA()
			errMatches(t, err, tt.wantErr)
			if string(got) != tt.want {
				t.Fatalf("CA = %q, want %q", got, tt.want)
			}
		})
	}
}
