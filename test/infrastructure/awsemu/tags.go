package awsemu

import (
	"encoding/xml"
	"strings"
)

// maxTagsPerResource is EC2's limit of tags on one resource.
const maxTagsPerResource = 50

// tagsOf returns the tag map of the resource with the given id.
func (r *region) tagsOf(id string) (map[string]string, *apiError) {
	if strings.HasPrefix(id, "arn:") {
		return r.serviceTags(id)
	}
	prefix, _, _ := strings.Cut(id, "-")
	var tags map[string]string
	var code string
	switch prefix {
	case "i":
		code = "InvalidInstanceID.NotFound"
		if i := r.instances[id]; i != nil {
			tags = i.tags
		}
	case "vpc":
		code = "InvalidVpcID.NotFound"
		if v := r.vpcs[id]; v != nil {
			tags = v.tags
		}
	case "eni":
		code = "InvalidNetworkInterfaceID.NotFound"
		if e := r.enis[id]; e != nil {
			tags = e.tags
		}
	case "sg":
		code = "InvalidGroup.NotFound"
		if g := r.groups[id]; g != nil {
			tags = g.tags
		}
	default:
		return nil, errClient("InvalidID", "The ID '%s' is not valid", id)
	}
	if tags == nil {
		return nil, errClient(code, "The ID '%s' does not exist", id)
	}
	return tags, nil
}

func (s *Server) createTags(req *request) (any, *apiError) {
	ids := stringList(req.params, "ResourceId")
	if len(ids) == 0 {
		return nil, errMissingParameter("ResourceId")
	}
	add, aerr := tagList(req.params, "Tag")
	if aerr != nil {
		return nil, aerr
	}
	// Check every resource first: the call changes all of them or none.
	targets := make([]map[string]string, 0, len(ids))
	for _, id := range ids {
		tags, aerr := req.region.tagsOf(id)
		if aerr != nil {
			return nil, aerr
		}
		n := len(tags)
		for k := range add {
			if _, ok := tags[k]; !ok {
				n++
			}
		}
		if n > maxTagsPerResource {
			return nil, errClient("TagLimitExceeded", "The maximum number of Tags for a resource has been reached.")
		}
		targets = append(targets, tags)
	}
	for _, tags := range targets {
		for k, v := range add {
			tags[k] = v
		}
	}
	return &returnResponse{XMLName: xml.Name{Local: "CreateTagsResponse"}, Return: true}, nil
}

func (s *Server) deleteTags(req *request) (any, *apiError) {
	ids := stringList(req.params, "ResourceId")
	if len(ids) == 0 {
		return nil, errMissingParameter("ResourceId")
	}
	type del struct {
		key, value string
		anyValue   bool
	}
	var dels []del
	for _, m := range members(req.params, "Tag") {
		_, has := m["Value"]
		dels = append(dels, del{key: m.Get("Key"), value: m.Get("Value"), anyValue: !has})
	}
	for _, id := range ids {
		tags, aerr := req.region.tagsOf(id)
		if aerr != nil {
			return nil, aerr
		}
		if len(dels) == 0 {
			clear(tags)
		}
		for _, d := range dels {
			if v, ok := tags[d.key]; ok && (d.anyValue || v == d.value) {
				delete(tags, d.key)
			}
		}
	}
	return &returnResponse{XMLName: xml.Name{Local: "DeleteTagsResponse"}, Return: true}, nil
}
