package awsemu

import (
	"bytes"
	"encoding/xml"
	"net/http"
)

// service is one AWS API the emulator serves, chosen by the service name of
// a request's SigV4 credential scope. EC2 speaks its own variant of the
// Query protocol; ELBv2, RDS and STS speak the AWS Query protocol, whose
// answers wrap the result in <{Action}Result> and whose errors are an
// <ErrorResponse>.
type service struct {
	// name is the signing name, e.g. ec2 or elasticloadbalancing.
	name string
	// version is the API version every call must name.
	version string
	// namespace is the XML namespace of the answers.
	namespace string
	handlers  map[string]handler
	// query is true for the AWS Query protocol, false for EC2's.
	query bool
}

var (
	ec2Service  = &service{name: "ec2", version: APIVersion, namespace: Namespace, handlers: ec2Handlers}
	elbService  = &service{name: "elasticloadbalancing", version: ELBAPIVersion, namespace: ELBNamespace, handlers: elbHandlers, query: true}
	rdsService  = &service{name: "rds", version: RDSAPIVersion, namespace: RDSNamespace, handlers: rdsHandlers, query: true}
	stsService  = &service{name: "sts", version: STSAPIVersion, namespace: STSNamespace, handlers: stsHandlers, query: true}
	allServices = []*service{ec2Service, elbService, rdsService, stsService}
)

// serviceNamed returns the service signed for, EC2 when unknown (its errors
// are what an unparsable request gets).
func serviceNamed(name string) (*service, bool) {
	for _, s := range allServices {
		if s.name == name {
			return s, true
		}
	}
	return ec2Service, false
}

// authFailure is why a request's credentials were refused.
type authFailure int

const (
	authUnknownKey authFailure = iota
	authBadSignature
	authExpired
)

// authError is the error each protocol answers for an auth failure: EC2
// says AuthFailure (RequestExpired for expired temporary credentials), the
// Query services InvalidClientTokenId, SignatureDoesNotMatch and
// ExpiredToken.
func (s *service) authError(f authFailure) *apiError {
	switch {
	case !s.query && f == authExpired:
		return &apiError{http.StatusBadRequest, "RequestExpired", "Request has expired."}
	case !s.query:
		return errAuthFailure()
	case f == authExpired:
		return &apiError{http.StatusForbidden, "ExpiredToken", "The security token included in the request is expired"}
	case f == authBadSignature:
		return &apiError{http.StatusForbidden, "SignatureDoesNotMatch",
			"The request signature we calculated does not match the signature you provided."}
	}
	return &apiError{http.StatusForbidden, "InvalidClientTokenId", "The security token included in the request is invalid."}
}

func (s *service) invalidRegion(name string) *apiError {
	if !s.query {
		return errInvalidRegion(name)
	}
	e := s.authError(authUnknownKey)
	e.message = "Credential should be scoped to a valid region, not '" + name + "'."
	return e
}

// faultError is the error of an injected fault in this protocol: throttling
// and revoked credentials take the service's own codes.
func (s *service) faultError(f *Fault) *apiError {
	switch {
	case s.query && f.kind == faultThrottle:
		return &apiError{http.StatusBadRequest, "Throttling", "Rate exceeded"}
	case f.kind == faultAuth:
		return s.authError(authUnknownKey)
	}
	return f.apiError()
}

func (s *service) writeError(w http.ResponseWriter, e *apiError) {
	if !s.query {
		writeError(w, e)
		return
	}
	typ := "Sender"
	if e.status >= 500 {
		typ = "Receiver"
	}
	out, _ := xml.Marshal(queryErrorResponse{Type: typ, Code: e.code, Message: e.message, RequestID: requestID()})
	writeXML(w, e.status, out)
}

type queryErrorResponse struct {
	XMLName   xml.Name `xml:"ErrorResponse"`
	Type      string   `xml:"Error>Type"`
	Code      string   `xml:"Error>Code"`
	Message   string   `xml:"Error>Message"`
	RequestID string   `xml:"RequestId"`
}

// writeResponse writes result as the answer to action: as is for EC2, in
// <{Action}Response><{Action}Result> with ResponseMetadata for the Query
// services.
func (s *service) writeResponse(w http.ResponseWriter, action string, result any) {
	if !s.query {
		writeResponse(w, result)
		return
	}
	var buf bytes.Buffer
	enc := xml.NewEncoder(&buf)
	start := xml.StartElement{Name: xml.Name{Local: action + "Response"}, Attr: []xml.Attr{{Name: xml.Name{Local: "xmlns"}, Value: s.namespace}}}
	err := enc.EncodeToken(start)
	if err == nil {
		err = enc.EncodeElement(result, xml.StartElement{Name: xml.Name{Local: action + "Result"}})
	}
	if err == nil {
		err = enc.EncodeElement(struct {
			RequestID string `xml:"RequestId"`
		}{requestID()}, xml.StartElement{Name: xml.Name{Local: "ResponseMetadata"}})
	}
	if err == nil {
		err = enc.EncodeToken(start.End())
	}
	if err == nil {
		err = enc.Flush()
	}
	if err != nil {
		s.writeError(w, &apiError{http.StatusInternalServerError, "InternalFailure", err.Error()})
		return
	}
	writeXML(w, http.StatusOK, buf.Bytes())
}
