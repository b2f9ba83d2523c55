package azureemu

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// listItem is one resource of a list, with the key it is paged by.
type listItem struct {
	key string // lowercased id
	doc any
}

// serveList answers one page of a list. The $skiptoken of nextLink names
// the last resource returned, so resources that come and go between pages
// never shift the others.
func (s *Server) serveList(w http.ResponseWriter, r *http.Request, rt route) {
	s.mu.Lock()
	items := rt.list(s)
	s.mu.Unlock()
	slices.SortFunc(items, func(a, b listItem) int { return strings.Compare(a.key, b.key) })

	q := r.URL.Query()
	start := 0
	if tok := q.Get("$skiptoken"); tok != "" {
		last, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil || len(last) == 0 {
			writeARMError(w, http.StatusBadRequest, "InvalidSkipToken", "The skip token is invalid.")
			return
		}
		start, _ = slices.BinarySearchFunc(items, string(last), func(it listItem, k string) int { return strings.Compare(it.key, k) })
		if start < len(items) && items[start].key == string(last) {
			start++
		}
	}
	items = items[start:]
	res := listResult{Value: []any{}}
	if len(items) > s.opts.PageSize {
		items = items[:s.opts.PageSize]
		q.Set("$skiptoken", base64.RawURLEncoding.EncodeToString([]byte(items[len(items)-1].key)))
		next := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
		res.NextLink = baseURL(r) + next.String()
	}
	for _, it := range items {
		res.Value = append(res.Value, it.doc)
	}
	writeJSON(w, http.StatusOK, res)
}

func (s *Server) locationItems() []listItem {
	var out []listItem
	for _, l := range s.opts.Locations {
		out = append(out, listItem{key: l, doc: locationJSON{ID: "/subscriptions/" + s.opts.SubscriptionID + "/locations/" + l, Name: l, DisplayName: l}})
	}
	return out
}

func (s *Server) vmItems() []listItem {
	var out []listItem
	for key, v := range s.vms {
		if v.hiddenFor > 0 {
			v.hiddenFor--
			continue
		}
		doc := vmJSON{ID: v.id, Name: v.name, Type: "Microsoft.Compute/virtualMachines", Location: v.location, Tags: v.tags}
		if v.zone != "" {
			doc.Zones = []string{v.zone}
		}
		p := &doc.Properties
		p.VMID, p.ProvisioningState = v.vmID, v.provisioning
		p.HardwareProfile.VMSize = v.size
		for i, id := range v.nics {
			ref := nicRefJSON{ID: id}
			ref.Properties.Primary = i == 0
			p.NetworkProfile.NetworkInterfaces = append(p.NetworkProfile.NetworkInterfaces, ref)
		}
		// statusOnly=true would be needed on the real ARM for the power
		// state; the emulator always includes it.
		p.InstanceView = &instanceViewJSON{Statuses: []statusJSON{
			{Code: "ProvisioningState/" + strings.ToLower(v.provisioning), Level: "Info"},
			{Code: "PowerState/" + v.power, Level: "Info", DisplayStatus: "VM " + v.power},
		}}
		out = append(out, listItem{key: key, doc: doc})
	}
	return out
}

func (s *Server) nicItems() []listItem {
	var out []listItem
	for key, n := range s.nics {
		if v := s.vms[strings.ToLower(n.vmID)]; v != nil && v.hiddenFor > 0 {
			continue
		}
		out = append(out, listItem{key: key, doc: nicDoc(n, "Succeeded")})
	}
	return out
}

func nicDoc(n *nic, state string) nicJSON {
	doc := nicJSON{ID: n.id, Name: n.name, Type: "Microsoft.Network/networkInterfaces", Location: n.location, Tags: n.tags}
	p := &doc.Properties
	p.MACAddress, p.Primary, p.ProvisioningState = n.mac, n.primary, state
	if n.vmID != "" {
		p.VirtualMachine = &idRef{ID: n.vmID}
	}
	if n.nsg != "" {
		p.NetworkSecurityGroup = &idRef{ID: n.nsg}
	}
	var ipc ipConfigJSON
	ipc.ID, ipc.Name = n.id+"/ipConfigurations/"+ipConfigName, ipConfigName
	ipc.Properties.PrivateIPAddress = n.privateIP
	ipc.Properties.PrivateIPAddressVersion, ipc.Properties.PrivateIPAllocationMethod = "IPv4", "Dynamic"
	ipc.Properties.Primary = true
	ipc.Properties.Subnet = &idRef{ID: n.subnetID}
	if n.publicIPID != "" {
		ipc.Properties.PublicIPAddress = &idRef{ID: n.publicIPID}
	}
	for _, a := range n.asgs {
		ipc.Properties.ApplicationSecurityGroups = append(ipc.Properties.ApplicationSecurityGroups, idRef{ID: a})
	}
	for _, pool := range n.pools {
		ipc.Properties.LoadBalancerBackendAddressPools = append(ipc.Properties.LoadBalancerBackendAddressPools, idRef{ID: pool})
	}
	p.IPConfigurations = []ipConfigJSON{ipc}
	return doc
}

// ipConfigName is the name of every NIC's one IP configuration.
const ipConfigName = "ipconfig1"

func (s *Server) vnetItems() []listItem {
	var out []listItem
	for key, v := range s.vnets {
		out = append(out, listItem{key: key, doc: s.vnetDoc(v)})
	}
	return out
}

func (s *Server) vnetDoc(v *vnet) vnetJSON {
	doc := vnetJSON{ID: v.id, Name: v.name, Type: "Microsoft.Network/virtualNetworks", Location: v.location, Tags: v.tags}
	doc.Properties.AddressSpace.AddressPrefixes = []string{v.prefix}
	var sub subnetJSON
	sub.ID, sub.Name, sub.Properties.AddressPrefix = v.subnetID, "default", v.prefix
	if v.natGatewayID != "" {
		sub.Properties.NatGateway = &idRef{ID: v.natGatewayID}
	}
	doc.Properties.Subnets = []subnetJSON{sub}
	doc.Properties.VirtualNetworkPeerings = s.peeringsDoc(v)
	return doc
}

func (s *Server) publicIPItems() []listItem {
	var out []listItem
	for key, p := range s.publicIPs {
		doc := publicIPJSON{ID: p.id, Name: p.name, Location: p.location}
		doc.Properties.IPAddress, doc.Properties.PublicIPAllocationMethod = p.address, "Static"
		out = append(out, listItem{key: key, doc: doc})
	}
	return out
}
