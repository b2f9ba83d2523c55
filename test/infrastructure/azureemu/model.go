package azureemu

// The emulator's state: resources keyed by lowercased ARM id.

type vnet struct {
	id, name, location string
	prefix             string
	tags               map[string]string
	subnetID           string
	nextHost           uint32
	// natGatewayID is the NAT gateway of its subnet, if any; peerings its
	// side of each VNet peering (routing.go).
	natGatewayID string
	peerings     []vnetPeering
}

type vm struct {
	id, name, location string
	resourceGroup      string
	size, zone         string
	vmID               string
	// power is the PowerState code suffix: starting, running, stopping,
	// stopped, deallocating, deallocated.
	power string
	// provisioning is the provisioningState: Succeeded, Deleting, ...
	provisioning string
	tags         map[string]string
	nics         []string // ids, primary first
	hiddenFor    int
}

type nic struct {
	id, name, location string
	mac                string
	vmID               string
	primary            bool
	nsg                string
	privateIP          string
	subnetID           string
	publicIPID         string
	asgs               []string
	// pools are the load balancer backend pools the IP configuration is
	// in.
	pools []string
	tags  map[string]string
}

type publicIP struct {
	id, name, location, address string
}

// The ARM JSON documents, with the property names of the
// Microsoft.Compute 2024-11-01 and Microsoft.Network 2025-01-01 schemas.

type idRef struct {
	ID string `json:"id"`
}

type listResult struct {
	Value    []any  `json:"value"`
	NextLink string `json:"nextLink,omitempty"`
}

type armError struct {
	Error armErrorBody `json:"error"`
}

type armErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type vmJSON struct {
	ID         string            `json:"id"`
	Name       string            `json:"name"`
	Type       string            `json:"type"`
	Location   string            `json:"location"`
	Tags       map[string]string `json:"tags,omitempty"`
	Zones      []string          `json:"zones,omitempty"`
	Properties vmProperties      `json:"properties"`
}

type vmProperties struct {
	VMID              string `json:"vmId"`
	ProvisioningState string `json:"provisioningState"`
	HardwareProfile   struct {
		VMSize string `json:"vmSize"`
	} `json:"hardwareProfile"`
	NetworkProfile struct {
		NetworkInterfaces []nicRefJSON `json:"networkInterfaces"`
	} `json:"networkProfile"`
	InstanceView *instanceViewJSON `json:"instanceView,omitempty"`
}

type nicRefJSON struct {
	ID         string `json:"id"`
	Properties struct {
		Primary bool `json:"primary"`
	} `json:"properties"`
}

type instanceViewJSON struct {
	Statuses []statusJSON `json:"statuses"`
}

type statusJSON struct {
	Code          string `json:"code"`
	Level         string `json:"level"`
	DisplayStatus string `json:"displayStatus"`
}

type nicJSON struct {
	ID         string            `json:"id"`
	Name       string            `json:"name"`
	Type       string            `json:"type"`
	Location   string            `json:"location"`
	Tags       map[string]string `json:"tags,omitempty"`
	Properties nicProperties     `json:"properties"`
}

type nicProperties struct {
	MACAddress           string         `json:"macAddress,omitempty"`
	Primary              bool           `json:"primary"`
	ProvisioningState    string         `json:"provisioningState"`
	VirtualMachine       *idRef         `json:"virtualMachine,omitempty"`
	NetworkSecurityGroup *idRef         `json:"networkSecurityGroup,omitempty"`
	IPConfigurations     []ipConfigJSON `json:"ipConfigurations"`
}

type ipConfigJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Properties struct {
		PrivateIPAddress                string  `json:"privateIPAddress"`
		PrivateIPAddressVersion         string  `json:"privateIPAddressVersion"`
		PrivateIPAllocationMethod       string  `json:"privateIPAllocationMethod"`
		Primary                         bool    `json:"primary"`
		Subnet                          *idRef  `json:"subnet,omitempty"`
		PublicIPAddress                 *idRef  `json:"publicIPAddress,omitempty"`
		ApplicationSecurityGroups       []idRef `json:"applicationSecurityGroups,omitempty"`
		LoadBalancerBackendAddressPools []idRef `json:"loadBalancerBackendAddressPools,omitempty"`
	} `json:"properties"`
}

type vnetJSON struct {
	ID         string            `json:"id"`
	Name       string            `json:"name"`
	Type       string            `json:"type"`
	Location   string            `json:"location"`
	Tags       map[string]string `json:"tags,omitempty"`
	Properties struct {
		AddressSpace struct {
			AddressPrefixes []string `json:"addressPrefixes"`
		} `json:"addressSpace"`
		Subnets                []subnetJSON  `json:"subnets"`
		VirtualNetworkPeerings []peeringJSON `json:"virtualNetworkPeerings,omitempty"`
	} `json:"properties"`
}

type subnetJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Properties struct {
		AddressPrefix string `json:"addressPrefix"`
		NatGateway    *idRef `json:"natGateway,omitempty"`
	} `json:"properties"`
}

type publicIPJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Location   string `json:"location"`
	Properties struct {
		IPAddress                string `json:"ipAddress"`
		PublicIPAllocationMethod string `json:"publicIPAllocationMethod"`
	} `json:"properties"`
}

type locationJSON struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
}

// nsg is a network security group; rules are kept as the client sent them,
// with the ids and states ARM adds.
type nsg struct {
	id, name, location string
	tags               map[string]string
	rules              []securityRuleJSON
}

// asg is an application security group.
type asg struct {
	id, name, location string
	tags               map[string]string
}

type nsgJSON struct {
	ID         string            `json:"id"`
	Name       string            `json:"name"`
	Type       string            `json:"type"`
	Location   string            `json:"location"`
	Tags       map[string]string `json:"tags,omitempty"`
	Properties struct {
		SecurityRules        []securityRuleJSON `json:"securityRules"`
		DefaultSecurityRules []securityRuleJSON `json:"defaultSecurityRules"`
		NetworkInterfaces    []idRef            `json:"networkInterfaces,omitempty"`
		ProvisioningState    string             `json:"provisioningState"`
	} `json:"properties"`
}

type securityRuleJSON struct {
	ID         string                 `json:"id,omitempty"`
	Name       string                 `json:"name"`
	Type       string                 `json:"type,omitempty"`
	Properties securityRuleProperties `json:"properties"`
}

type securityRuleProperties struct {
	Description                          string   `json:"description,omitempty"`
	Protocol                             string   `json:"protocol"`
	SourcePortRange                      string   `json:"sourcePortRange,omitempty"`
	SourcePortRanges                     []string `json:"sourcePortRanges,omitempty"`
	DestinationPortRange                 string   `json:"destinationPortRange,omitempty"`
	DestinationPortRanges                []string `json:"destinationPortRanges,omitempty"`
	SourceAddressPrefix                  string   `json:"sourceAddressPrefix,omitempty"`
	SourceAddressPrefixes                []string `json:"sourceAddressPrefixes,omitempty"`
	DestinationAddressPrefix             string   `json:"destinationAddressPrefix,omitempty"`
	DestinationAddressPrefixes           []string `json:"destinationAddressPrefixes,omitempty"`
	SourceApplicationSecurityGroups      []idRef  `json:"sourceApplicationSecurityGroups,omitempty"`
	DestinationApplicationSecurityGroups []idRef  `json:"destinationApplicationSecurityGroups,omitempty"`
	Access                               string   `json:"access"`
	Priority                             int32    `json:"priority"`
	Direction                            string   `json:"direction"`
	ProvisioningState                    string   `json:"provisioningState,omitempty"`
}

type asgJSON struct {
	ID         string            `json:"id"`
	Name       string            `json:"name"`
	Type       string            `json:"type"`
	Location   string            `json:"location"`
	Tags       map[string]string `json:"tags,omitempty"`
	Properties struct {
		ProvisioningState string `json:"provisioningState"`
	} `json:"properties"`
}

type operationJSON struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Status string `json:"status"`
}
