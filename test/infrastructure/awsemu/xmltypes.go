package awsemu

import "encoding/xml"

// The response documents, with the element names of the EC2 2016-11-15
// schema. Lists are <fooSet><item>...</item></fooSet>.

type tagXML struct {
	Key   string `xml:"key"`
	Value string `xml:"value"`
}

type groupXML struct {
	GroupID   string `xml:"groupId"`
	GroupName string `xml:"groupName"`
}

type regionXML struct {
	RegionName  string `xml:"regionName"`
	Endpoint    string `xml:"regionEndpoint"`
	OptInStatus string `xml:"optInStatus"`
}

type describeRegionsResponse struct {
	XMLName xml.Name `xml:"DescribeRegionsResponse"`
	responseMeta
	Regions []regionXML `xml:"regionInfo>item"`
}

type vpcXML struct {
	VpcID     string   `xml:"vpcId"`
	State     string   `xml:"state"`
	CidrBlock string   `xml:"cidrBlock"`
	OwnerID   string   `xml:"ownerId"`
	IsDefault bool     `xml:"isDefault"`
	Tags      []tagXML `xml:"tagSet>item"`
}

type describeVpcsResponse struct {
	XMLName xml.Name `xml:"DescribeVpcsResponse"`
	responseMeta
	Vpcs      []vpcXML `xml:"vpcSet>item"`
	NextToken string   `xml:"nextToken,omitempty"`
}

type instanceStateXML struct {
	Code int    `xml:"code"`
	Name string `xml:"name"`
}

type associationXML struct {
	PublicIP string `xml:"publicIp"`
}

type privateIPXML struct {
	PrivateIP   string          `xml:"privateIpAddress"`
	Primary     bool            `xml:"primary"`
	Association *associationXML `xml:"association,omitempty"`
}

type attachmentXML struct {
	AttachmentID string `xml:"attachmentId"`
	InstanceID   string `xml:"instanceId,omitempty"`
	DeviceIndex  int    `xml:"deviceIndex"`
	Status       string `xml:"status"`
}

// nicXML serves both an instance's networkInterfaceSet items and
// DescribeNetworkInterfaces items; the SDK ignores what a shape lacks.
type nicXML struct {
	NetworkInterfaceID string          `xml:"networkInterfaceId"`
	SubnetID           string          `xml:"subnetId"`
	VpcID              string          `xml:"vpcId"`
	AvailabilityZone   string          `xml:"availabilityZone,omitempty"`
	OwnerID            string          `xml:"ownerId"`
	Status             string          `xml:"status"`
	MacAddress         string          `xml:"macAddress"`
	PrivateIP          string          `xml:"privateIpAddress"`
	Groups             []groupXML      `xml:"groupSet>item"`
	Attachment         *attachmentXML  `xml:"attachment,omitempty"`
	Association        *associationXML `xml:"association,omitempty"`
	PrivateIPs         []privateIPXML  `xml:"privateIpAddressesSet>item"`
	Tags               []tagXML        `xml:"tagSet>item,omitempty"`
	Description        string          `xml:"description,omitempty"`
	InterfaceType      string          `xml:"interfaceType,omitempty"`
	RequesterID        string          `xml:"requesterId,omitempty"`
	RequesterManaged   bool            `xml:"requesterManaged"`
}

type placementXML struct {
	AvailabilityZone string `xml:"availabilityZone"`
}

type instanceXML struct {
	InstanceID   string           `xml:"instanceId"`
	InstanceType string           `xml:"instanceType"`
	State        instanceStateXML `xml:"instanceState"`
	Placement    placementXML     `xml:"placement"`
	PrivateIP    string           `xml:"privateIpAddress,omitempty"`
	PublicIP     string           `xml:"ipAddress,omitempty"`
	SubnetID     string           `xml:"subnetId,omitempty"`
	VpcID        string           `xml:"vpcId,omitempty"`
	Groups       []groupXML       `xml:"groupSet>item"`
	Tags         []tagXML         `xml:"tagSet>item"`
	NICs         []nicXML         `xml:"networkInterfaceSet>item"`
}

type reservationXML struct {
	ReservationID string        `xml:"reservationId"`
	OwnerID       string        `xml:"ownerId"`
	Instances     []instanceXML `xml:"instancesSet>item"`
}

type describeInstancesResponse struct {
	XMLName xml.Name `xml:"DescribeInstancesResponse"`
	responseMeta
	Reservations []reservationXML `xml:"reservationSet>item"`
	NextToken    string           `xml:"nextToken,omitempty"`
}

type describeNetworkInterfacesResponse struct {
	XMLName xml.Name `xml:"DescribeNetworkInterfacesResponse"`
	responseMeta
	NICs      []nicXML `xml:"networkInterfaceSet>item"`
	NextToken string   `xml:"nextToken,omitempty"`
}

type ipRangeXML struct {
	CidrIP      string `xml:"cidrIp"`
	Description string `xml:"description,omitempty"`
}

type ipv6RangeXML struct {
	CidrIPv6    string `xml:"cidrIpv6"`
	Description string `xml:"description,omitempty"`
}

type groupPairXML struct {
	UserID      string `xml:"userId"`
	GroupID     string `xml:"groupId"`
	Description string `xml:"description,omitempty"`
}

type ipPermissionXML struct {
	IPProtocol string         `xml:"ipProtocol"`
	FromPort   *int32         `xml:"fromPort,omitempty"`
	ToPort     *int32         `xml:"toPort,omitempty"`
	Groups     []groupPairXML `xml:"groups>item"`
	IPRanges   []ipRangeXML   `xml:"ipRanges>item"`
	IPv6Ranges []ipv6RangeXML `xml:"ipv6Ranges>item"`
}

type securityGroupXML struct {
	OwnerID     string            `xml:"ownerId"`
	GroupID     string            `xml:"groupId"`
	GroupName   string            `xml:"groupName"`
	Description string            `xml:"groupDescription"`
	VpcID       string            `xml:"vpcId"`
	Ingress     []ipPermissionXML `xml:"ipPermissions>item"`
	Egress      []ipPermissionXML `xml:"ipPermissionsEgress>item"`
	Tags        []tagXML          `xml:"tagSet>item"`
}

type describeSecurityGroupsResponse struct {
	XMLName xml.Name `xml:"DescribeSecurityGroupsResponse"`
	responseMeta
	Groups    []securityGroupXML `xml:"securityGroupInfo>item"`
	NextToken string             `xml:"nextToken,omitempty"`
}

type createSecurityGroupResponse struct {
	XMLName xml.Name `xml:"CreateSecurityGroupResponse"`
	responseMeta
	Return  bool     `xml:"return"`
	GroupID string   `xml:"groupId"`
	Tags    []tagXML `xml:"tagSet>item"`
}

// returnResponse is the {Action}Response with only <return>true</return>.
type returnResponse struct {
	XMLName xml.Name
	responseMeta
	Return bool `xml:"return"`
}

type revokeResponse struct {
	XMLName xml.Name
	responseMeta
	Return  bool              `xml:"return"`
	Unknown []ipPermissionXML `xml:"unknownIpPermissionSet>item"`
}
