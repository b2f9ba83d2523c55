package awsemu

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// RDS API version and XML namespace.
const (
	RDSAPIVersion = "2014-10-31"
	RDSNamespace  = "http://rds.amazonaws.com/doc/" + RDSAPIVersion + "/"
)

var rdsHandlers = map[string]handler{
	"DescribeDBInstances": (*Server).describeDBInstances,
	"DescribeDBClusters":  (*Server).describeDBClusters,
	"ModifyDBInstance":    (*Server).modifyDBInstance,
	"ModifyDBCluster":     (*Server).modifyDBCluster,
}

type dbInstance struct {
	id, arn, engine, class string
	address                string
	port                   int32
	vpcID, subnetID        string
	groups                 []string
	public                 bool
	tags                   map[string]string
	// eni is the requester-managed interface holding the instance's
	// address.
	eni string
	// cluster is the DB cluster the instance is a member of, if any: its
	// groups are the cluster's.
	cluster string
}

// DBInstanceSpec describes an RDS DB instance to add.
type DBInstanceSpec struct {
	// Region, VPCID and Identifier; all required.
	Region, VPCID, Identifier string
	// Engine; default postgres. Port; default the engine's.
	Engine string
	Port   int32
	// PubliclyAccessible gives the instance's interface a public address.
	PubliclyAccessible bool
	// SecurityGroupIDs; default the VPC's default group.
	SecurityGroupIDs []string
	// Tags of the instance.
	Tags map[string]string
}

// DBInstance is what AddDBInstance created.
type DBInstance struct {
	ARN, Address string
	Port         int32
	// NIC is its interface, PrivateIP the address its endpoint resolves
	// to inside the VPC.
	NIC, PrivateIP string
}

var enginePorts = map[string]int32{"postgres": 5432, "mysql": 3306, "mariadb": 3306, "sqlserver-se": 1433, "oracle-ee": 1521}

// AddDBInstance adds an available DB instance with a requester-managed
// interface (described "RDSNetworkInterface", as AWS does) holding the
// address its endpoint resolves to; LookupHost resolves it.
func (s *Server) AddDBInstance(spec DBInstanceSpec) (DBInstance, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	reg, err := s.region(spec.Region)
	if err != nil {
		return DBInstance{}, err
	}
	v := reg.vpcs[spec.VPCID]
	if v == nil || spec.Identifier == "" || reg.dbs[spec.Identifier] != nil {
		return DBInstance{}, fmt.Errorf("DB instance %q needs a new identifier and a VPC of %s (got %q)", spec.Identifier, spec.Region, spec.VPCID)
	}
	db := &dbInstance{
		id: spec.Identifier, engine: cmp.Or(spec.Engine, "postgres"), class: "db.t3.micro",
		vpcID: v.id, subnetID: v.subnetID, public: spec.PubliclyAccessible, tags: copyTags(spec.Tags),
		groups: slices.Clone(spec.SecurityGroupIDs),
	}
	db.arn = fmt.Sprintf("arn:aws:rds:%s:%s:db:%s", spec.Region, s.opts.OwnerID, db.id)
	db.port = cmp.Or(spec.Port, enginePorts[db.engine], 5432)
	db.address = fmt.Sprintf("%s.c%09x.%s.rds.amazonaws.com", db.id, s.seq+1, spec.Region)
	if len(db.groups) == 0 {
		db.groups = []string{v.defaultGroup}
	}
	if err := s.addDBInterface(reg, v, db); err != nil {
		return DBInstance{}, err
	}
	reg.dbs[db.id] = db
	return reg.dbView(db), nil
}

func (s *Server) addDBInterface(reg *region, v *vpc, db *dbInstance) error {
	ip, err := v.allocIP()
	if err != nil {
		return err
	}
	e := &eni{
		id: s.newID("eni"), vpcID: v.id, subnetID: v.subnetID, mac: s.newMAC(), privateIPs: []string{ip},
		groups: slices.Clone(db.groups), tags: map[string]string{}, description: "RDSNetworkInterface", requesterID: "amazon-rds",
	}
	if db.public {
		e.publicIP = s.newPublicIP()
	}
	reg.enis[e.id] = e
	db.eni = e.id
	return nil
}

func (r *region) dbView(db *dbInstance) DBInstance {
	return DBInstance{ARN: db.arn, Address: db.address, Port: db.port, NIC: db.eni, PrivateIP: r.enis[db.eni].privateIPs[0]}
}

// FailOverDBInstance moves a DB instance to a new interface with a new
// address, as a Multi-AZ failover does; its endpoint name stays.
func (s *Server) FailOverDBInstance(regionName, id string) (DBInstance, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	reg, err := s.region(regionName)
	if err != nil {
		return DBInstance{}, err
	}
	db := reg.dbs[id]
	if db == nil {
		return DBInstance{}, fmt.Errorf("DB instance %s not found in %s", id, regionName)
	}
	old := db.eni
	if err := s.addDBInterface(reg, reg.vpcs[db.vpcID], db); err != nil {
		return DBInstance{}, err
	}
	delete(reg.enis, old)
	return reg.dbView(db), nil
}

// DeleteDBInstance deletes a DB instance and its interface.
func (s *Server) DeleteDBInstance(regionName, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	reg, err := s.region(regionName)
	if err != nil {
		return err
	}
	db := reg.dbs[id]
	if db == nil {
		return fmt.Errorf("DB instance %s not found in %s", id, regionName)
	}
	delete(reg.enis, db.eni)
	delete(reg.dbs, id)
	return nil
}

// LookupHost resolves the endpoint names of the emulated DB instances to
// their private addresses, as the VPC's DNS does; it stands in for a DNS
// resolver in tests and the sandbox.
func (s *Server) LookupHost(_ context.Context, host string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, reg := range s.regions {
		for _, db := range reg.dbs {
			if db.address == host {
				e := reg.enis[db.eni]
				return slices.Clone(e.privateIPs), nil
			}
		}
	}
	return nil, fmt.Errorf("lookup %s: no such host", host)
}

type dbInstanceXML struct {
	DBInstanceIdentifier string           `xml:"DBInstanceIdentifier"`
	DBInstanceArn        string           `xml:"DBInstanceArn"`
	DBInstanceClass      string           `xml:"DBInstanceClass"`
	Engine               string           `xml:"Engine"`
	DBInstanceStatus     string           `xml:"DBInstanceStatus"`
	Endpoint             dbEndpointXML    `xml:"Endpoint"`
	DBSubnetGroup        dbSubnetGroupXML `xml:"DBSubnetGroup"`
	VpcSecurityGroups    []dbGroupXML     `xml:"VpcSecurityGroups>VpcSecurityGroupMembership"`
	PubliclyAccessible   bool             `xml:"PubliclyAccessible"`
	DBClusterIdentifier  string           `xml:"DBClusterIdentifier,omitempty"`
	TagList              []elbTagXML      `xml:"TagList>Tag"`
}

type dbEndpointXML struct {
	Address string `xml:"Address"`
	Port    int32  `xml:"Port"`
}

type dbSubnetGroupXML struct {
	Name    string   `xml:"DBSubnetGroupName"`
	VpcID   string   `xml:"VpcId"`
	Status  string   `xml:"SubnetGroupStatus"`
	Subnets []string `xml:"Subnets>Subnet>SubnetIdentifier"`
}

type dbGroupXML struct {
	ID     string `xml:"VpcSecurityGroupId"`
	Status string `xml:"Status"`
}

type describeDBInstancesResult struct {
	DBInstances []dbInstanceXML `xml:"DBInstances>DBInstance"`
	Marker      string          `xml:"Marker,omitempty"`
}

func (s *Server) describeDBInstances(req *request) (any, *apiError) {
	reg := req.region
	pageIDs, next, aerr := rdsPage(req, "DescribeDBInstances", "DBInstanceIdentifier", sortedKeys(reg.dbs), func(id string) *apiError {
		if reg.dbs[id] == nil {
			return &apiError{http.StatusNotFound, "DBInstanceNotFound", "DBInstance " + id + " not found."}
		}
		return nil
	})
	if aerr != nil {
		return nil, aerr
	}
	out := &describeDBInstancesResult{Marker: next}
	for _, id := range pageIDs {
		out.DBInstances = append(out.DBInstances, reg.dbInstanceXML(reg.dbs[id]))
	}
	return out, nil
}

func (reg *region) dbInstanceXML(db *dbInstance) dbInstanceXML {
	x := dbInstanceXML{
		DBInstanceIdentifier: db.id, DBInstanceArn: db.arn, DBInstanceClass: db.class, Engine: db.engine,
		DBInstanceStatus: "available", Endpoint: dbEndpointXML{Address: db.address, Port: db.port},
		DBSubnetGroup:      dbSubnetGroupXML{Name: "default-" + db.vpcID, VpcID: db.vpcID, Status: "Complete", Subnets: []string{db.subnetID}},
		PubliclyAccessible: db.public, DBClusterIdentifier: db.cluster,
	}
	for _, g := range db.groups {
		x.VpcSecurityGroups = append(x.VpcSecurityGroups, dbGroupXML{ID: g, Status: "active"})
	}
	for _, k := range sortedKeys(db.tags) {
		x.TagList = append(x.TagList, elbTagXML{Key: k, Value: db.tags[k]})
	}
	return x
}

// rdsPage is the page of ids an RDS describe asks for: no Filters,
// MaxRecords 20 to 100 (default 100), one identifier (which must exist)
// or all, from the Marker on.
func rdsPage(req *request, action, idParam string, ids []string, exists func(string) *apiError) ([]string, string, *apiError) {
	if len(members(req.params, "Filters.Filter")) > 0 {
		return nil, "", errClient("InvalidParameterValue", "the emulator does not support Filters on %s", action)
	}
	size := 100
	if v := req.params.Get("MaxRecords"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 20 || n > 100 {
			return nil, "", errClient("InvalidParameterValue", "Invalid value %s for MaxRecords. Must be between 20 and 100", v)
		}
		size = n
	}
	if id := req.params.Get(idParam); id != "" {
		if aerr := exists(id); aerr != nil {
			return nil, "", aerr
		}
		ids = []string{id}
	}
	return page(ids, req.params.Get("Marker"), size)
}
