package awsemu

import (
	"net/http"
	"strconv"
)

// The ELBv2 answers, with the element names of the 2015-12-01 schema.
// Lists are <Foo><member>...</member></Foo>.

type lbXML struct {
	LoadBalancerArn   string      `xml:"LoadBalancerArn"`
	DNSName           string      `xml:"DNSName"`
	LoadBalancerName  string      `xml:"LoadBalancerName"`
	Scheme            string      `xml:"Scheme"`
	VpcID             string      `xml:"VpcId"`
	State             lbStateXML  `xml:"State"`
	Type              string      `xml:"Type"`
	AvailabilityZones []lbZoneXML `xml:"AvailabilityZones>member"`
	SecurityGroups    []string    `xml:"SecurityGroups>member,omitempty"`
	IPAddressType     string      `xml:"IpAddressType"`
}

type lbStateXML struct {
	Code string `xml:"Code"`
}

type lbZoneXML struct {
	ZoneName string `xml:"ZoneName"`
	SubnetID string `xml:"SubnetId"`
}

type describeLoadBalancersResult struct {
	LoadBalancers []lbXML `xml:"LoadBalancers>member"`
	NextMarker    string  `xml:"NextMarker,omitempty"`
}

type listenerXML struct {
	ListenerArn     string `xml:"ListenerArn"`
	LoadBalancerArn string `xml:"LoadBalancerArn"`
	Port            int32  `xml:"Port"`
	Protocol        string `xml:"Protocol"`
}

type describeListenersResult struct {
	Listeners  []listenerXML `xml:"Listeners>member"`
	NextMarker string        `xml:"NextMarker,omitempty"`
}

type elbTagXML struct {
	Key   string `xml:"Key"`
	Value string `xml:"Value"`
}

type tagDescriptionXML struct {
	ResourceArn string      `xml:"ResourceArn"`
	Tags        []elbTagXML `xml:"Tags>member"`
}

type describeELBTagsResult struct {
	TagDescriptions []tagDescriptionXML `xml:"TagDescriptions>member"`
}

func errLBNotFound(arn string) *apiError {
	return &apiError{http.StatusBadRequest, "LoadBalancerNotFound", "One or more load balancers not found: " + arn}
}

// pageSize parses the ELBv2 PageSize, 1 to 400.
func pageSize(v string, def int) (int, *apiError) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 400 {
		return 0, errValidation("1 validation error detected: Value '" + v + "' at 'pageSize' failed to satisfy constraint: Member must have value between 1 and 400")
	}
	return n, nil
}

func (s *Server) describeLoadBalancers(req *request) (any, *apiError) {
	reg := req.region
	size, aerr := pageSize(req.params.Get("PageSize"), s.opts.DefaultPageSize)
	if aerr != nil {
		return nil, aerr
	}
	ids, aerr := lookupIDs(stringList(req.params, "LoadBalancerArns.member"), sortedKeys(reg.lbs),
		func(arn string) bool { return reg.lbs[arn] != nil }, errLBNotFound)
	if aerr != nil {
		return nil, aerr
	}
	if names := stringList(req.params, "Names.member"); len(names) > 0 {
		var byName []string
		for _, name := range names {
			n := len(byName)
			for _, arn := range ids {
				if reg.lbs[arn].name == name {
					byName = append(byName, arn)
				}
			}
			if len(byName) == n {
				return nil, errLBNotFound(name)
			}
		}
		ids = byName
	}
	pageIDs, next, aerr := page(ids, req.params.Get("Marker"), size)
	if aerr != nil {
		return nil, aerr
	}
	out := &describeLoadBalancersResult{NextMarker: next}
	for _, arn := range pageIDs {
		lb := reg.lbs[arn]
		x := lbXML{
			LoadBalancerArn: lb.arn, DNSName: lb.dnsName, LoadBalancerName: lb.name, Scheme: lb.scheme,
			VpcID: lb.vpcID, State: lbStateXML{Code: "active"}, Type: lb.typ, SecurityGroups: lb.groups, IPAddressType: "ipv4",
		}
		for n, id := range lb.enis {
			x.AvailabilityZones = append(x.AvailabilityZones, lbZoneXML{ZoneName: reg.name + string(rune('a'+n%6)), SubnetID: reg.enis[id].subnetID})
		}
		out.LoadBalancers = append(out.LoadBalancers, x)
	}
	return out, nil
}

func (s *Server) describeListeners(req *request) (any, *apiError) {
	arn := req.params.Get("LoadBalancerArn")
	if arn == "" {
		return nil, errValidation("You must specify either listener ARNs or a load balancer ARN")
	}
	lb := req.region.lbs[arn]
	if lb == nil {
		return nil, errLBNotFound(arn)
	}
	size, aerr := pageSize(req.params.Get("PageSize"), s.opts.DefaultPageSize)
	if aerr != nil {
		return nil, aerr
	}
	byARN := map[string]listener{}
	for _, l := range lb.listeners {
		byARN[l.arn] = l
	}
	pageIDs, next, aerr := page(sortedKeys(byARN), req.params.Get("Marker"), size)
	if aerr != nil {
		return nil, aerr
	}
	out := &describeListenersResult{NextMarker: next}
	for _, id := range pageIDs {
		l := byARN[id]
		out.Listeners = append(out.Listeners, listenerXML{ListenerArn: l.arn, LoadBalancerArn: lb.arn, Port: l.port, Protocol: l.protocol})
	}
	return out, nil
}

func (s *Server) describeELBTags(req *request) (any, *apiError) {
	arns := stringList(req.params, "ResourceArns.member")
	if len(arns) == 0 || len(arns) > 20 {
		return nil, errValidation("1 validation error detected: Value at 'resourceArns' failed to satisfy constraint: Member must have length between 1 and 20")
	}
	out := &describeELBTagsResult{}
	for _, arn := range arns {
		lb := req.region.lbs[arn]
		if lb == nil {
			return nil, errLBNotFound(arn)
		}
		d := tagDescriptionXML{ResourceArn: arn}
		for _, k := range sortedKeys(lb.tags) {
			d.Tags = append(d.Tags, elbTagXML{Key: k, Value: lb.tags[k]})
		}
		out.TagDescriptions = append(out.TagDescriptions, d)
	}
	return out, nil
}
