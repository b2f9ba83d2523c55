package view

import (
	"fmt"
	"slices"
	"sort"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
	"antreaplus.io/antreaplus/pkg/federation/membership"
	"antreaplus.io/antreaplus/pkg/serviceexport"
)

// The kinds the federation view reads.
var federationKinds = []string{"ClusterMemberships", "MemberClusters", "Leases", "Nodes"}

// Federation is the federation view: every member, grouped by region and
// zone, the supervisors and whom each leads, reachability and credentials
// health as the supervisors report them, and the recent changes of leader.
type Federation struct {
	FederationIDs []string       `json:"federationIDs"`
	Members       []FedMember    `json:"members"`
	Regions       []Region       `json:"regions"`
	Supervisors   []Supervisor   `json:"supervisors"`
	Changes       []Change       `json:"changes"`
	Problems      []string       `json:"problems"`
	Outside       []FedMember    `json:"outside,omitempty"`
	Headers       []MemberHeader `json:"headers"`
}

// FedMember is one member of the federation view.
type FedMember struct {
	Context      string   `json:"context"`
	ClusterID    string   `json:"clusterID"`
	FederationID string   `json:"federationID,omitempty"`
	Supervisor   bool     `json:"supervisor"`
	Region       string   `json:"region,omitempty"`
	Zones        []string `json:"zones,omitempty"`
	// Leader is the ClusterID of the supervisor that leads it, "" when
	// none; LeaderContext its context, when the console reads it.
	Leader        string            `json:"leader,omitempty"`
	LeaderContext string            `json:"leaderContext,omitempty"`
	LeaderTerm    int32             `json:"leaderTerm,omitempty"`
	LeaderSince   *metav1.MicroTime `json:"leaderSince,omitempty"`
	// Reachable and Ready are what the supervisors' registries say
	// (ReportedBy the freshest); Credentials the CredentialsValid
	// condition's message when it is not True.
	Reachable   bool   `json:"reachable"`
	Ready       bool   `json:"ready"`
	ReportedBy  string `json:"reportedBy,omitempty"`
	LastError   string `json:"lastError,omitempty"`
	Credentials string `json:"credentials,omitempty"`
	// Health is the console's own probe of the member.
	Health   Health   `json:"health"`
	Problems []string `json:"problems,omitempty"`
	Kubectl  string   `json:"kubectl"`
	// LeaseKubectl shows the member's leader Lease.
	LeaseKubectl string `json:"leaseKubectl,omitempty"`
}

// Region is a region and its zones, each with its members' contexts.
type Region struct {
	Name  string `json:"name"`
	Zones []Zone `json:"zones"`
}

// Zone is a zone of a region.
type Zone struct {
	Name    string   `json:"name"`
	Members []string `json:"members"`
}

// Supervisor is a supervisor and the members it leads.
type Supervisor struct {
	ClusterID string   `json:"clusterID"`
	Context   string   `json:"context,omitempty"`
	Reachable bool     `json:"reachable"`
	Error     string   `json:"error,omitempty"`
	Leads     []string `json:"leads"`
	// Manager is its federation manager's heartbeat (its Lease in the
	// supervisor): "beating", or how long it has not; "" when not read.
	Manager string `json:"manager,omitempty"`
	// ManagerAlive: the heartbeat was renewed within its duration.
	ManagerAlive bool `json:"managerAlive"`
}

// Change is a change of a member's leader.
type Change struct {
	Member string    `json:"member"`
	From   string    `json:"from,omitempty"`
	To     string    `json:"to,omitempty"`
	Term   int32     `json:"term"`
	At     time.Time `json:"at"`
}

// FederationOf is the federation view of the members at now; changes are
// the changes of leader the console saw (Leaders), newest first.
func FederationOf(members []*Member, changes []Change, now time.Time) Federation {
	f := Federation{FederationIDs: []string{}, Members: []FedMember{}, Regions: []Region{}, Supervisors: []Supervisor{},
		Changes: changes, Problems: []string{}, Headers: []MemberHeader{}}
	if f.Changes == nil {
		f.Changes = []Change{}
	}
	byID := map[string]*Member{}
	var regs []membership.Registry
	leases := map[string]membership.LeaseView{}
	for _, m := range sortMembers(members) {
		f.Headers = append(f.Headers, header(m, federationKinds...))
		id := m.ClusterID()
		if id == "" {
			f.Outside = append(f.Outside, FedMember{Context: m.Context, Health: m.Health, Kubectl: Kubectl(m.Context, "clustermemberships", "", "")})
			continue
		}
		byID[id] = m
		if fid := m.Membership.Spec.FederationID; !slices.Contains(f.FederationIDs, fid) {
			f.FederationIDs = append(f.FederationIDs, fid)
		}
		switch {
		case m.Health.Probed && !m.Health.Reachable:
			leases[id] = membership.LeaseNotRead(fmt.Errorf("%s does not answer: %s", m.Context, m.Health.Error))
		case !readable(m, "Leases"):
			leases[id] = membership.LeaseNotRead(fmt.Errorf("the Leases of %s are not readable here", federationv1alpha1.SystemNamespace))
		default:
			leases[id] = membership.LeaseOf(leaderLease(m.Leases), m.Membership)
		}
		if isSupervisor(m) {
			sup := membership.SupervisorStatus{Context: m.Context, ClusterID: id, FederationID: m.Membership.Spec.FederationID,
				Reachable: m.Health.Reachable && readable(m, "MemberClusters"), Members: len(m.Registry)}
			if !sup.Reachable {
				sup.Error = unreadableWhy(m, "MemberClusters")
			}
			regs = append(regs, membership.Registry{Supervisor: sup, Entries: m.Registry})
		}
	}
	st := membership.Merge(regs, leases, now)
	f.Problems = append(f.Problems, st.Problems...)
	for _, s := range st.Supervisors {
		sup := Supervisor{ClusterID: s.ClusterID, Context: s.Context, Reachable: s.Reachable, Error: s.Error, Leads: []string{}}
		if m := byID[s.ClusterID]; m != nil && readable(m, "Leases") {
			sup.Manager, sup.ManagerAlive = heartbeat(m.Leases, now)
		}
		f.Supervisors = append(f.Supervisors, sup)
	}
	listed := map[string]bool{}
	for _, ms := range st.Members {
		listed[ms.ClusterID] = true
		f.Members = append(f.Members, fedMember(ms, byID[ms.ClusterID], byID))
	}
	// Members whose supervisors' registries are not read here: from
	// their own ClusterMembership and Lease.
	for id, m := range byID {
		if !listed[id] {
			fm := FedMember{Context: m.Context, ClusterID: id, FederationID: m.Membership.Spec.FederationID, Supervisor: isSupervisor(m),
				Health: m.Health, Kubectl: Kubectl(m.Context, "clustermemberships", "", "")}
			fm.Problems = []string{"no supervisor registry read here lists it"}
			if l := leaderLease(m.Leases); l != nil && l.Spec.HolderIdentity != nil {
				fm.Leader = *l.Spec.HolderIdentity
			}
			placeOf(&fm, m)
			f.Members = append(f.Members, fm)
		}
	}
	sort.Slice(f.Members, func(i, j int) bool { return f.Members[i].ClusterID < f.Members[j].ClusterID })
	for i := range f.Supervisors {
		s := &f.Supervisors[i]
		for _, m := range f.Members {
			if m.Leader == s.ClusterID {
				s.Leads = append(s.Leads, m.ClusterID)
			}
		}
	}
	f.Regions = regionsOf(append(slices.Clone(f.Members), f.Outside...))
	return f
}

// fedMember is a member's row: the merged status, where it is, and who
// leads it.
func fedMember(ms membership.MemberStatus, m *Member, byID map[string]*Member) FedMember {
	fm := FedMember{ClusterID: ms.ClusterID, Supervisor: ms.Supervisor, Leader: ms.Leader, LeaderTerm: ms.LeaderTerm,
		LeaderSince: ms.LeaderSince, Reachable: ms.Reachable, Ready: ms.Ready, ReportedBy: ms.ReportedBy, LastError: ms.LastError,
		Problems: ms.Problems}
	if c := meta.FindStatusCondition(ms.Conditions, federationv1alpha1.MemberCredentialsValid); c != nil && c.Status != metav1.ConditionTrue {
		fm.Credentials = c.Message
	}
	if l, ok := byID[ms.Leader]; ok {
		fm.LeaderContext = l.Context
	}
	if m == nil {
		fm.Context = ms.ClusterID
		fm.Kubectl = ""
		return fm
	}
	fm.Context, fm.FederationID, fm.Health = m.Context, m.Membership.Spec.FederationID, m.Health
	fm.Supervisor = fm.Supervisor || isSupervisor(m)
	fm.Kubectl = Kubectl(m.Context, "clustermemberships", "", "")
	fm.LeaseKubectl = Kubectl(m.Context, "leases", federationv1alpha1.SystemNamespace, federationv1alpha1.LeaderLease)
	placeOf(&fm, m)
	return fm
}

// placeOf sets a member's region and zones from its nodes.
func placeOf(fm *FedMember, m *Member) {
	fm.Region, fm.Zones = serviceexport.Region(m.Nodes), serviceexport.Zones(m.Nodes)
}

// regionsOf groups members by region, then by first zone ("" for none).
func regionsOf(ms []FedMember) []Region {
	by := map[string]map[string][]string{}
	for _, m := range ms {
		zone := ""
		if len(m.Zones) > 0 {
			zone = m.Zones[0]
		}
		if by[m.Region] == nil {
			by[m.Region] = map[string][]string{}
		}
		by[m.Region][zone] = append(by[m.Region][zone], m.Context)
	}
	out := []Region{}
	for _, r := range sortedKeys(by) {
		reg := Region{Name: r, Zones: []Zone{}}
		for _, z := range sortedKeys(by[r]) {
			members := by[r][z]
			sort.Strings(members)
			reg.Zones = append(reg.Zones, Zone{Name: z, Members: members})
		}
		out = append(out, reg)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// isSupervisor: the member runs a federation manager (its
// ClusterMembership says so).
func isSupervisor(m *Member) bool {
	return m.Membership != nil && m.Membership.Spec.Supervisor
}

// heartbeat says whether a supervisor's federation manager renews its
// Lease (ManagerLease): alive while renewed within the Lease's duration,
// stopped once released (an empty holder: the manager shut down).
func heartbeat(leases []coordinationv1.Lease, now time.Time) (string, bool) {
	for i := range leases {
		l := &leases[i]
		if l.Namespace != federationv1alpha1.SystemNamespace || l.Name != federationv1alpha1.ManagerLease || l.Spec.RenewTime == nil {
			continue
		}
		if ptr.Deref(l.Spec.HolderIdentity, "x") == "" {
			return "stopped: its manager shut down", false
		}
		age := now.Sub(l.Spec.RenewTime.Time)
		d := time.Duration(ptr.Deref(l.Spec.LeaseDurationSeconds, 0)) * time.Second
		if d == 0 || age <= d {
			return "beating", true
		}
		return fmt.Sprintf("stopped: no heartbeat for %s", age.Round(time.Second)), false
	}
	return "no heartbeat Lease", false
}

// leaderLease is the member's leader Lease among leases, nil when none.
func leaderLease(leases []coordinationv1.Lease) *coordinationv1.Lease {
	for i := range leases {
		if leases[i].Namespace == federationv1alpha1.SystemNamespace && leases[i].Name == federationv1alpha1.LeaderLease {
			return &leases[i]
		}
	}
	return nil
}

// unreadableWhy says why a member's kind is not read.
func unreadableWhy(m *Member, kind string) string {
	if !m.Health.Reachable {
		if m.Health.Error != "" {
			return "unreachable: " + m.Health.Error
		}
		return "unreachable"
	}
	st := m.Kinds[kind]
	if st.Message != "" {
		return fmt.Sprintf("%s %s: %s", kind, st.State, st.Message)
	}
	return fmt.Sprintf("%s %s", kind, st.State)
}

// Leaders follows the changes of every member's leader between two
// federation views (a leader lost counts: to none): the changes of next
// against prev, newest first, kept to at most keep (with the older ones
// of kept).
func Leaders(prev, next Federation, kept []Change, at time.Time, keep int) []Change {
	was := map[string]FedMember{}
	for _, m := range prev.Members {
		was[m.ClusterID] = m
	}
	var out []Change
	for _, m := range next.Members {
		p, ok := was[m.ClusterID]
		if !ok || p.Leader == m.Leader {
			continue
		}
		out = append(out, Change{Member: m.ClusterID, From: p.Leader, To: m.Leader, Term: m.LeaderTerm, At: at})
	}
	out = append(out, kept...)
	if len(out) > keep {
		out = out[:keep]
	}
	return out
}
