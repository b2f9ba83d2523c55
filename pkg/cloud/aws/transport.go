package aws

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"time"
)

// NewHTTPClient returns the HTTP client the provider uses by default: sane
// timeouts, and request bodies buffered before they are sent.
//
// Buffering works around a race between smithy-go and net/http: the SDK
// closes a request's body as soon as the response arrives, and its body
// wrapper then answers io.EOF as an error to the transport's final read of
// the body, which makes the transport close the connection while the
// response is still being read ("use of closed network connection", see
// aws/aws-sdk-go-v2#2737). A fast server, such as a local emulator, hits it
// every few calls. An in-memory body is never read after it is sent.
func NewHTTPClient() *http.Client {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.MaxIdleConnsPerHost = 16
	base.ResponseHeaderTimeout = 60 * time.Second
	base.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return &http.Client{Transport: BufferRequestBodies(base)}
}

// BufferRequestBodies wraps next so that every request body is read into
// memory before the request is sent; see NewHTTPClient.
func BufferRequestBodies(next http.RoundTripper) http.RoundTripper {
	return bufferingTransport{next: next}
}

type bufferingTransport struct{ next http.RoundTripper }

func (t bufferingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return t.next.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, err
	}
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	out.ContentLength = int64(len(body))
	return t.next.RoundTrip(out)
}
