package azureemu

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// This file serves single resources: GET, PUT and DELETE of network
// security groups, application security groups and network interfaces
// (PUT only updates their security), GET of VNets, and the status of the
// long-running operations that PUT and DELETE start. ARM answers a PUT
// with the resource in provisioningState Updating and an
// Azure-AsyncOperation header; the SDK polls that URL until it says
// Succeeded, then GETs the resource. The emulator applies every write at
// once, so the first poll succeeds.

// Resource kinds, as the lowercased type segment of their path.
const (
	kindNSG       = "networksecuritygroups"
	kindASG       = "applicationsecuritygroups"
	kindNIC       = "networkinterfaces"
	kindVNet      = "virtualnetworks"
	kindOperation = "operations"
)

var opNames = map[string]string{
	kindNSG: "NetworkSecurityGroups", kindASG: "ApplicationSecurityGroups",
	kindNIC: "NetworkInterfaces", kindVNet: "VirtualNetworks",
}

// resourceRef is a parsed resource path below /subscriptions/{id}/.
type resourceRef struct {
	kind string
	// key is the lowercased path below the subscription: with the
	// subscription prefix it is the lowercased resource id.
	key string
	// name is the last segment (the operation id for operations).
	name string
}

// parseResource parses "resourcegroups/{rg}/providers/microsoft.network/
// {type}/{name}" and "providers/microsoft.network/locations/{loc}/
// operations/{id}" (lowercased).
func parseResource(rest string) (resourceRef, bool) {
	parts := strings.Split(rest, "/")
	switch {
	case len(parts) == 6 && parts[0] == "resourcegroups" && parts[2] == "providers" && parts[3] == "microsoft.network" && opNames[parts[4]] != "":
		return resourceRef{kind: parts[4], key: rest, name: parts[5]}, true
	case len(parts) == 6 && parts[0] == "providers" && parts[1] == "microsoft.network" && parts[2] == "locations" && parts[4] == kindOperation:
		return resourceRef{kind: kindOperation, key: rest, name: parts[5]}, true
	}
	return resourceRef{}, false
}

func (res resourceRef) op(method string) string {
	if res.kind == kindOperation {
		return "Operations.Get"
	}
	switch method {
	case http.MethodPut:
		return opNames[res.kind] + ".CreateOrUpdate"
	case http.MethodDelete:
		return opNames[res.kind] + ".Delete"
	}
	return opNames[res.kind] + ".Get"
}

func (s *Server) serveResource(w http.ResponseWriter, r *http.Request, res resourceRef) {
	id := s.idOf(r, res)
	switch {
	case res.kind == kindOperation && r.Method == http.MethodGet:
		s.serveOperation(w, res)
	case r.Method == http.MethodGet:
		s.getResource(w, res, id)
	case r.Method == http.MethodPut && (res.kind == kindNSG || res.kind == kindASG || res.kind == kindNIC):
		s.putResource(w, r, res, id)
	case r.Method == http.MethodDelete && (res.kind == kindNSG || res.kind == kindASG):
		s.deleteResource(w, r, res, id)
	default:
		writeARMError(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "The emulator does not serve "+r.Method+" of this resource type.")
	}
}

// idOf is the resource id as the client spelled it.
func (s *Server) idOf(r *http.Request, res resourceRef) string {
	p := strings.TrimSuffix(r.URL.Path, "/")
	return "/subscriptions/" + s.opts.SubscriptionID + p[len(p)-len(res.key)-1:]
}

func (s *Server) getResource(w http.ResponseWriter, res resourceRef, id string) {
	s.mu.Lock()
	key := strings.ToLower(id)
	var doc any
	switch res.kind {
	case kindNSG:
		if g := s.nsgs[key]; g != nil {
			doc = s.nsgDoc(g, s.nsgInterfaces())
		}
	case kindASG:
		if a := s.asgs[key]; a != nil {
			doc = asgDoc(a)
		}
	case kindNIC:
		if n := s.nics[key]; n != nil {
			doc = nicDoc(n, "Succeeded")
		}
	case kindVNet:
		if v := s.vnets[key]; v != nil {
			doc = s.vnetDoc(v)
		}
	}
	s.mu.Unlock()
	if doc == nil {
		writeNotFound(w, id)
		return
	}
	writeJSON(w, http.StatusOK, doc)
}

func writeNotFound(w http.ResponseWriter, id string) {
	writeARMError(w, http.StatusNotFound, "ResourceNotFound", fmt.Sprintf("The Resource '%s' was not found.", id))
}

// armFailure is a refused write: an HTTP status and an ARM error.
type armFailure struct {
	status        int
	code, message string
}

func badRequest(code, format string, args ...any) *armFailure {
	return &armFailure{status: http.StatusBadRequest, code: code, message: fmt.Sprintf(format, args...)}
}

func (s *Server) putResource(w http.ResponseWriter, r *http.Request, res resourceRef, id string) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil {
		writeARMError(w, http.StatusBadRequest, "InvalidRequestContent", "The request body could not be read.")
		return
	}
	s.mu.Lock()
	var (
		doc     any
		created bool
		fail    *armFailure
	)
	switch res.kind {
	case kindNSG:
		doc, created, fail = s.putNSG(id, body)
	case kindASG:
		doc, created, fail = s.putASG(id, body)
	case kindNIC:
		doc, fail = s.putNIC(id, body)
	}
	var op string
	if fail == nil {
		op = s.newOperation()
	}
	s.mu.Unlock()
	if fail != nil {
		writeARMError(w, fail.status, fail.code, fail.message)
		return
	}
	s.setAsyncHeader(w, r, op)
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, doc)
}

func (s *Server) deleteResource(w http.ResponseWriter, r *http.Request, res resourceRef, id string) {
	key := strings.ToLower(id)
	s.mu.Lock()
	var fail *armFailure
	found := false
	switch res.kind {
	case kindNSG:
		if found = s.nsgs[key] != nil; found {
			fail = s.deleteNSG(key, id)
		}
	case kindASG:
		if found = s.asgs[key] != nil; found {
			fail = s.deleteASG(key, id)
		}
	}
	var op string
	if found && fail == nil {
		op = s.newOperation()
	}
	s.mu.Unlock()
	switch {
	case !found:
		w.Header().Set("x-ms-request-id", requestID())
		w.WriteHeader(http.StatusNoContent)
	case fail != nil:
		writeARMError(w, fail.status, fail.code, fail.message)
	default:
		s.setAsyncHeader(w, r, op)
		w.Header().Set("x-ms-request-id", requestID())
		w.WriteHeader(http.StatusAccepted)
	}
}

// newOperation records a finished long-running operation; s.mu is held.
func (s *Server) newOperation() string {
	id := requestID()
	s.operations[id] = true
	return id
}

func (s *Server) setAsyncHeader(w http.ResponseWriter, r *http.Request, op string) {
	u := fmt.Sprintf("%s/subscriptions/%s/providers/Microsoft.Network/locations/%s/operations/%s?api-version=%s",
		baseURL(r), s.opts.SubscriptionID, s.opts.Locations[0], op, r.URL.Query().Get("api-version"))
	w.Header().Set("Azure-AsyncOperation", u)
}

func (s *Server) serveOperation(w http.ResponseWriter, res resourceRef) {
	s.mu.Lock()
	known := s.operations[res.name]
	s.mu.Unlock()
	if !known {
		writeARMError(w, http.StatusNotFound, "OperationNotFound", "The operation "+res.name+" was not found.")
		return
	}
	writeJSON(w, http.StatusOK, operationJSON{ID: res.key, Name: res.name, Status: "Succeeded"})
}

// decode unmarshals a request body.
func decode(body []byte, v any) *armFailure {
	if err := json.Unmarshal(body, v); err != nil {
		return badRequest("InvalidRequestFormat", "Cannot parse the request: %v", err)
	}
	return nil
}
