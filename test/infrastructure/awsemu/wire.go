package awsemu

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"net/http"
	"strconv"
)

// apiError is an EC2 error response.
type apiError struct {
	status  int
	code    string
	message string
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

type errorResponse struct {
	XMLName   xml.Name `xml:"Response"`
	Code      string   `xml:"Errors>Error>Code"`
	Message   string   `xml:"Errors>Error>Message"`
	RequestID string   `xml:"RequestID"`
}

// responseMeta is embedded in every success response.
type responseMeta struct {
	Xmlns     string `xml:"xmlns,attr"`
	RequestID string `xml:"requestId"`
}

// metaSetter lets writeResponse fill in the namespace and request id.
type metaSetter interface{ setMeta(requestID string) }

func (m *responseMeta) setMeta(requestID string) {
	m.Xmlns = Namespace
	m.RequestID = requestID
}

func requestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func writeResponse(w http.ResponseWriter, resp any) {
	if m, ok := resp.(metaSetter); ok {
		m.setMeta(requestID())
	}
	out, err := xml.Marshal(resp)
	if err != nil {
		writeError(w, &apiError{http.StatusInternalServerError, "InternalError", err.Error()})
		return
	}
	writeXML(w, http.StatusOK, out)
}

// writeXML writes one whole XML document with its length, so that clients
// never see a chunked body.
func writeXML(w http.ResponseWriter, status int, doc []byte) {
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(xml.Header)+len(doc)))
	w.WriteHeader(status)
	_, _ = w.Write([]byte(xml.Header))
	_, _ = w.Write(doc)
}

func writeError(w http.ResponseWriter, e *apiError) {
	out, _ := xml.Marshal(errorResponse{Code: e.code, Message: e.message, RequestID: requestID()})
	writeXML(w, e.status, out)
}

// Error constructors, with the codes and messages EC2 uses.

func errBadRequest(msg string) *apiError {
	return &apiError{http.StatusBadRequest, "InvalidRequest", msg}
}

func errAuthFailure() *apiError {
	return &apiError{http.StatusUnauthorized, "AuthFailure", "AWS was not able to validate the provided access credentials"}
}

func errInvalidRegion(name string) *apiError {
	return &apiError{http.StatusUnauthorized, "AuthFailure", fmt.Sprintf("Credential should be scoped to a valid region, not '%s'.", name)}
}

func errInvalidAction(action string) *apiError {
	return &apiError{http.StatusBadRequest, "InvalidAction", fmt.Sprintf("The action %s is not valid for this web service.", action)}
}

func errNoSuchVersion(v string) *apiError {
	return &apiError{http.StatusBadRequest, "NoSuchVersion", fmt.Sprintf("The requested version (%s) of service AmazonEC2 does not exist", v)}
}

func errInvalidParameterValue(format string, args ...any) *apiError {
	return &apiError{http.StatusBadRequest, "InvalidParameterValue", fmt.Sprintf(format, args...)}
}

func errMissingParameter(name string) *apiError {
	return &apiError{http.StatusBadRequest, "MissingParameter", fmt.Sprintf("The request must contain the parameter %s", name)}
}

func errClient(code, format string, args ...any) *apiError {
	return &apiError{http.StatusBadRequest, code, fmt.Sprintf(format, args...)}
}
