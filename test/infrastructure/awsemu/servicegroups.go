package awsemu

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
)

// This file holds the security groups of the services: Aurora DB clusters
// (DescribeDBClusters), ModifyDBInstance and ModifyDBCluster with
// VpcSecurityGroupIds, and ELBv2 SetSecurityGroups. A service's groups are
// also its requester-managed interfaces' groups, as on AWS, and those
// interfaces' groups cannot be changed through EC2.

type dbCluster struct {
	id, arn, engine string
	address         string
	port            int32
	vpcID           string
	groups          []string
	tags            map[string]string
	// members are the identifiers of its DB instances, the first the
	// writer.
	members []string
}

// DBClusterSpec describes an Aurora DB cluster to add.
type DBClusterSpec struct {
	// Region, VPCID and Identifier; all required.
	Region, VPCID, Identifier string
	// Engine; default aurora-postgresql. Port; default the engine's.
	Engine string
	Port   int32
	// Instances is the number of member DB instances; default 1.
	Instances int
	// SecurityGroupIDs; default the VPC's default group.
	SecurityGroupIDs []string
	// Tags of the cluster.
	Tags map[string]string
}

// DBCluster is what AddDBCluster created.
type DBCluster struct {
	ARN, Address string
	Port         int32
	// Instances are its member instances, the writer first.
	Instances []DBInstance
}

// AddDBCluster adds an available Aurora DB cluster with its member
// instances, each with a requester-managed interface carrying the
// cluster's groups.
func (s *Server) AddDBCluster(spec DBClusterSpec) (DBCluster, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	reg, err := s.region(spec.Region)
	if err != nil {
		return DBCluster{}, err
	}
	v := reg.vpcs[spec.VPCID]
	if v == nil || spec.Identifier == "" || reg.clusters[spec.Identifier] != nil {
		return DBCluster{}, fmt.Errorf("DB cluster %q needs a new identifier and a VPC of %s (got %q)", spec.Identifier, spec.Region, spec.VPCID)
	}
	c := &dbCluster{
		id: spec.Identifier, engine: cmp.Or(spec.Engine, "aurora-postgresql"), vpcID: v.id,
		groups: slices.Clone(spec.SecurityGroupIDs), tags: copyTags(spec.Tags),
	}
	if len(c.groups) == 0 {
		c.groups = []string{v.defaultGroup}
	}
	c.arn = fmt.Sprintf("arn:aws:rds:%s:%s:cluster:%s", spec.Region, s.opts.OwnerID, c.id)
	c.port = cmp.Or(spec.Port, map[string]int32{"aurora-mysql": 3306}[c.engine], 5432)
	c.address = fmt.Sprintf("%s.cluster-c%09x.%s.rds.amazonaws.com", c.id, s.seq+1, spec.Region)
	out := DBCluster{ARN: c.arn, Address: c.address, Port: c.port}
	for i := range max(spec.Instances, 1) {
		db := &dbInstance{
			id: fmt.Sprintf("%s-instance-%d", c.id, i+1), engine: c.engine, class: "db.r6g.large",
			vpcID: v.id, subnetID: v.subnetID, groups: slices.Clone(c.groups), cluster: c.id, port: c.port, tags: map[string]string{},
		}
		db.arn = fmt.Sprintf("arn:aws:rds:%s:%s:db:%s", spec.Region, s.opts.OwnerID, db.id)
		db.address = fmt.Sprintf("%s.c%09x.%s.rds.amazonaws.com", db.id, s.seq+1, spec.Region)
		if err := s.addDBInterface(reg, v, db); err != nil {
			return DBCluster{}, err
		}
		reg.dbs[db.id] = db
		c.members = append(c.members, db.id)
		out.Instances = append(out.Instances, reg.dbView(db))
	}
	reg.clusters[c.id] = c
	return out, nil
}

// DeleteDBCluster deletes a DB cluster, its instances and their
// interfaces.
func (s *Server) DeleteDBCluster(regionName, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	reg, err := s.region(regionName)
	if err != nil {
		return err
	}
	c := reg.clusters[id]
	if c == nil {
		return fmt.Errorf("DB cluster %s not found in %s", id, regionName)
	}
	for _, m := range c.members {
		if db := reg.dbs[m]; db != nil {
			delete(reg.enis, db.eni)
			delete(reg.dbs, m)
		}
	}
	delete(reg.clusters, id)
	return nil
}

// ServiceGroups returns the security groups of a DB instance, DB cluster
// (by identifier) or load balancer (by ARN), as the cloud holds them.
func (s *Server) ServiceGroups(regionName, id string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	reg, err := s.region(regionName)
	if err != nil {
		return nil, err
	}
	switch {
	case reg.dbs[id] != nil:
		return slices.Clone(reg.dbs[id].groups), nil
	case reg.clusters[id] != nil:
		return slices.Clone(reg.clusters[id].groups), nil
	case reg.lbs[id] != nil:
		return slices.Clone(reg.lbs[id].groups), nil
	}
	return nil, fmt.Errorf("no DB instance, DB cluster or load balancer %s in %s", id, regionName)
}

// checkServiceGroups checks the groups a service is given: each exists in
// its VPC, at most the quota of groups per interface; it returns them
// sorted.
func (s *Server) checkServiceGroups(reg *region, vpcID string, ids []string, invalid func(id string) *apiError) ([]string, *apiError) {
	for _, id := range ids {
		if g := reg.groups[id]; g == nil || g.vpcID != vpcID {
			return nil, invalid(id)
		}
	}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	if len(ids) > s.opts.Quotas.GroupsPerInterface {
		return nil, nil
	}
	return ids, nil
}

// setInterfaceGroups gives the service's interfaces its groups.
func (reg *region) setInterfaceGroups(enis []string, groups []string) {
	for _, id := range enis {
		if e := reg.enis[id]; e != nil {
			e.groups = slices.Clone(groups)
		}
	}
}

func errRDSGroup(id string) *apiError {
	return errClient("InvalidParameterValue", "Invalid security group, groupId= %s, groupName=.", id)
}

func errRDSGroupQuota(n int) *apiError {
	return errClient("InvalidParameterCombination", "The number of VPC security groups exceeds the maximum allowed (%d).", n)
}

type dbClusterXML struct {
	DBClusterIdentifier string               `xml:"DBClusterIdentifier"`
	DBClusterArn        string               `xml:"DBClusterArn"`
	Engine              string               `xml:"Engine"`
	Status              string               `xml:"Status"`
	Endpoint            string               `xml:"Endpoint"`
	ReaderEndpoint      string               `xml:"ReaderEndpoint"`
	Port                int32                `xml:"Port"`
	DBSubnetGroup       string               `xml:"DBSubnetGroup"`
	Members             []dbClusterMemberXML `xml:"DBClusterMembers>DBClusterMember"`
	VpcSecurityGroups   []dbGroupXML         `xml:"VpcSecurityGroups>VpcSecurityGroupMembership"`
	TagList             []elbTagXML          `xml:"TagList>Tag"`
}

type dbClusterMemberXML struct {
	DBInstanceIdentifier string `xml:"DBInstanceIdentifier"`
	IsClusterWriter      bool   `xml:"IsClusterWriter"`
}

type describeDBClustersResult struct {
	DBClusters []dbClusterXML `xml:"DBClusters>DBCluster"`
	Marker     string         `xml:"Marker,omitempty"`
}

func (reg *region) clusterXML(c *dbCluster) dbClusterXML {
	x := dbClusterXML{
		DBClusterIdentifier: c.id, DBClusterArn: c.arn, Engine: c.engine, Status: "available",
		Endpoint: c.address, ReaderEndpoint: "reader." + c.address, Port: c.port, DBSubnetGroup: "default-" + c.vpcID,
	}
	for i, m := range c.members {
		x.Members = append(x.Members, dbClusterMemberXML{DBInstanceIdentifier: m, IsClusterWriter: i == 0})
	}
	for _, g := range c.groups {
		x.VpcSecurityGroups = append(x.VpcSecurityGroups, dbGroupXML{ID: g, Status: "active"})
	}
	for _, k := range sortedKeys(c.tags) {
		x.TagList = append(x.TagList, elbTagXML{Key: k, Value: c.tags[k]})
	}
	return x
}

func (s *Server) describeDBClusters(req *request) (any, *apiError) {
	reg := req.region
	pageIDs, next, aerr := rdsPage(req, "DescribeDBClusters", "DBClusterIdentifier", sortedKeys(reg.clusters), func(id string) *apiError {
		if reg.clusters[id] == nil {
			return errDBClusterNotFound(id)
		}
		return nil
	})
	if aerr != nil {
		return nil, aerr
	}
	out := &describeDBClustersResult{Marker: next}
	for _, id := range pageIDs {
		out.DBClusters = append(out.DBClusters, reg.clusterXML(reg.clusters[id]))
	}
	return out, nil
}

func errDBClusterNotFound(id string) *apiError {
	return &apiError{http.StatusNotFound, "DBClusterNotFoundFault", "DBCluster " + id + " not found."}
}

type modifyDBInstanceResult struct {
	DBInstance dbInstanceXML `xml:"DBInstance"`
}

type modifyDBClusterResult struct {
	DBCluster dbClusterXML `xml:"DBCluster"`
}

// modifyDBInstance takes VpcSecurityGroupIds only (other changes are
// accepted and ignored). A member of a DB cluster takes the cluster's.
func (s *Server) modifyDBInstance(req *request) (any, *apiError) {
	reg := req.region
	id := req.params.Get("DBInstanceIdentifier")
	if id == "" {
		return nil, errMissingParameter("DBInstanceIdentifier")
	}
	db := reg.dbs[id]
	if db == nil {
		return nil, &apiError{http.StatusNotFound, "DBInstanceNotFound", "DBInstance " + id + " not found."}
	}
	if ids := stringList(req.params, "VpcSecurityGroupIds.VpcSecurityGroupId"); len(ids) > 0 {
		if db.cluster != "" {
			return nil, errClient("InvalidParameterCombination", "The requested DB instance will be a member of a DB cluster. Set VPC security groups for the DB cluster.")
		}
		groups, aerr := s.checkServiceGroups(reg, db.vpcID, ids, errRDSGroup)
		if aerr != nil {
			return nil, aerr
		}
		if groups == nil {
			return nil, errRDSGroupQuota(s.opts.Quotas.GroupsPerInterface)
		}
		db.groups = groups
		reg.setInterfaceGroups([]string{db.eni}, groups)
	}
	return &modifyDBInstanceResult{DBInstance: reg.dbInstanceXML(db)}, nil
}

// modifyDBCluster takes VpcSecurityGroupIds only; the members' interfaces
// get the groups.
func (s *Server) modifyDBCluster(req *request) (any, *apiError) {
	reg := req.region
	id := req.params.Get("DBClusterIdentifier")
	if id == "" {
		return nil, errMissingParameter("DBClusterIdentifier")
	}
	c := reg.clusters[id]
	if c == nil {
		return nil, errDBClusterNotFound(id)
	}
	if ids := stringList(req.params, "VpcSecurityGroupIds.VpcSecurityGroupId"); len(ids) > 0 {
		groups, aerr := s.checkServiceGroups(reg, c.vpcID, ids, errRDSGroup)
		if aerr != nil {
			return nil, aerr
		}
		if groups == nil {
			return nil, errRDSGroupQuota(s.opts.Quotas.GroupsPerInterface)
		}
		c.groups = groups
		for _, m := range c.members {
			if db := reg.dbs[m]; db != nil {
				db.groups = slices.Clone(groups)
				reg.setInterfaceGroups([]string{db.eni}, groups)
			}
		}
	}
	return &modifyDBClusterResult{DBCluster: reg.clusterXML(c)}, nil
}

type setSecurityGroupsResult struct {
	SecurityGroupIds []string `xml:"SecurityGroupIds>member"`
}

// setSecurityGroups replaces a load balancer's groups. A Network Load
// Balancer created without security groups cannot get any, as on AWS.
func (s *Server) setSecurityGroups(req *request) (any, *apiError) {
	reg := req.region
	arn := req.params.Get("LoadBalancerArn")
	if arn == "" {
		return nil, errValidation("1 validation error detected: Value null at 'loadBalancerArn' failed to satisfy constraint: Member must not be null")
	}
	lb := reg.lbs[arn]
	if lb == nil {
		return nil, errLBNotFound(arn)
	}
	ids := stringList(req.params, "SecurityGroups.member")
	if lb.typ == "network" && len(lb.groups) == 0 {
		return nil, errClient("InvalidConfigurationRequest", "You cannot set security groups on a Network Load Balancer which was created without any security groups.")
	}
	if len(ids) == 0 && lb.typ == "application" {
		return nil, errClient("InvalidConfigurationRequest", "An Application Load Balancer must have at least one security group.")
	}
	groups, aerr := s.checkServiceGroups(reg, lb.vpcID, ids, func(id string) *apiError {
		return errClient("InvalidSecurityGroup", "Security group '%s' does not exist in VPC '%s'", id, lb.vpcID)
	})
	if aerr != nil {
		return nil, aerr
	}
	if groups == nil {
		return nil, errClient("TooManySecurityGroups", "You have reached the maximum number of security groups (%d) for a load balancer.", s.opts.Quotas.GroupsPerInterface)
	}
	lb.groups = groups
	reg.setInterfaceGroups(lb.enis, groups)
	return &setSecurityGroupsResult{SecurityGroupIds: groups}, nil
}
