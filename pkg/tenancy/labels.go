package tenancy

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/event"

	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
)

// Defaults of a controller instance.
const (
	// DefaultSharedSelector selects every Namespace that names no
	// dedicated controller: the chart's default for its shared instance.
	DefaultSharedSelector = "!" + tenancyv1alpha1.LabelController
	// DefaultInstance is the instance name when none is given.
	DefaultInstance = "shared"
)

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
		inst, ok := strings.CutPrefix(k, tenancyv1alpha1.AnnotationContenderPrefix)
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
	Elsewhere []tenancyv1alpha1.Overlap
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
