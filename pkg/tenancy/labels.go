package tenancy

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/event"
)

// Labels and annotations of tenancy, on Namespaces and on the Leases in the
// controllers' namespace.
const (
	// LabelTenant marks a Namespace as a tenant ("true"; `antreaplus tenant
	// create` sets it) and, on a claim Lease, names the tenant it claims.
	LabelTenant = "tenancy.antreaplus.io/tenant"
	// LabelController on a Namespace names the controller instance that
	// should manage it: a hard tenant. The chart's shared instance selects
	// the Namespaces without it (DefaultSharedSelector).
	LabelController = "tenancy.antreaplus.io/controller"
	// LabelInstance on a claim or replica Lease names the controller
	// instance that holds it.
	LabelInstance = "tenancy.antreaplus.io/instance"
	// LabelLease says what a Lease is: LeaseClaim or LeaseReplica.
	LabelLease = "tenancy.antreaplus.io/lease"
	// LeaseClaim is the LabelLease value of a tenant's claim.
	LeaseClaim = "claim"
	// LeaseReplica is the LabelLease value of a replica's heartbeat.
	LeaseReplica = "replica"
	// AnnotationContenderPrefix + an instance name, on a claim Lease: that
	// instance selects the tenant too and leaves it alone; the value is the
	// RFC 3339 time it last said so.
	AnnotationContenderPrefix = "contender.tenancy.antreaplus.io/"
	// OverlapsConfigMap, in the controllers' namespace of a member, is
	// written by the member's federation leader: key a tenant, value what
	// claims it in other members (Overlap, JSON).
	OverlapsConfigMap = "antreaplus-tenant-overlaps"
	// DefaultSharedSelector selects every Namespace that names no
	// dedicated controller: the chart's default for its shared instance.
	DefaultSharedSelector = "!" + LabelController
	// DefaultInstance is the instance name when none is given.
	DefaultInstance = "shared"
)

// ClaimLeaseName is the name of tenant's claim Lease.
func ClaimLeaseName(tenant string) string { return "tenant-" + tenant }

// ReplicaLeaseName is the name of the heartbeat Lease of a replica of an
// instance; long names are shortened with a hash to fit a DNS subdomain.
func ReplicaLeaseName(instance, replica string) string {
	name := "tenancy-" + instance + "-" + replica
	if len(name) <= 253 {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return name[:230] + "-" + hex.EncodeToString(sum[:])[:16]
}

// HolderIdentity is the holderIdentity of a claim: "<instance>/<replica>".
func HolderIdentity(instance, replica string) string { return instance + "/" + replica }

// SplitHolder splits a holderIdentity into instance and replica.
func SplitHolder(holder string) (instance, replica string) {
	instance, replica, _ = strings.Cut(holder, "/")
	return instance, replica
}

// ContenderWindow is how long a contender annotation counts after it was
// written: two lease durations (a contender refreshes it once per
// duration while it still selects the tenant).
func ContenderWindow(leaseDuration time.Duration) time.Duration { return 2 * leaseDuration }

// Contenders are the instances, other than holderInstance, whose contender
// annotation among annotations was written less than window before now,
// sorted.
func Contenders(annotations map[string]string, holderInstance string, window time.Duration, now time.Time) []string {
	var out []string
	for k, v := range annotations {
		inst, ok := strings.CutPrefix(k, AnnotationContenderPrefix)
		if !ok || inst == "" || inst == holderInstance {
			continue
		}
		if at, err := time.Parse(time.RFC3339, v); err == nil && now.Sub(at) < window {
			out = append(out, inst)
		}
	}
	sort.Strings(out)
	return out
}

// Overlap is a claim of the same tenant in another member of a federation.
type Overlap struct {
	// Member is the ClusterID of the other member.
	Member string `json:"member"`
	// Holder is the holderIdentity of the claim there.
	Holder string `json:"holder"`
}

// State is what a controller knows about one tenant's claim.
type State struct {
	// Owned: this replica holds the claim and may manage the tenant.
	Owned bool
	// Holder is the claim's holderIdentity ("" when unclaimed).
	Holder string
	// Contenders are the other instances that select the tenant and leave
	// it alone, sorted.
	Contenders []string
	// Elsewhere are the claims of the tenant in other members.
	Elsewhere []Overlap
}

// Gate answers whether this replica may manage a tenant now. Controllers
// check it before every write or cloud call for a tenant's objects.
type Gate interface {
	// Owns reports whether the tenant (a namespace) is managed here now.
	Owns(tenant string) bool
	// State is what is known of the tenant's claim.
	State(tenant string) State
	// Begin starts a unit of work for the tenant (a poll and its writes)
	// if the tenant is managed here now; done ends it. A replica giving a
	// tenant up releases its claim only once the work begun is done, so
	// that the next owner never works beside it.
	Begin(tenant string) (done func(), ok bool)
}

// Source is a Gate that also tells when ownership changes: Owner.
type Source interface {
	Gate
	// Subscribe delivers a Namespace each time its ownership changes.
	Subscribe() <-chan event.GenericEvent
	// Kick asks for a claim round soon (a tenant appeared).
	Kick()
}

// All is the Gate of a controller without tenancy: it owns every tenant.
type All struct{}

// Owns is always true.
func (All) Owns(string) bool { return true }

// State says the tenant is owned.
func (All) State(string) State { return State{Owned: true} }

// Begin always starts.
func (All) Begin(string) (func(), bool) { return func() {}, true }
