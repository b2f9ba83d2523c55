package account

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cloudv1alpha1 "antreaplus.io/antreaplus/api/cloud/v1alpha1"
	tenancyv1alpha1 "antreaplus.io/antreaplus/api/tenancy/v1alpha1"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/accountprovider"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/inventorysync"
	"antreaplus.io/antreaplus/pkg/cloudcontroller/pollstatus"
	"antreaplus.io/antreaplus/pkg/tenancy"
)

// Condition reasons besides the API's.
const (
	// ReasonInvalidConfiguration: the provider refused its options.
	ReasonInvalidConfiguration = "InvalidConfiguration"
	// ReasonPending: no poll has told yet.
	ReasonPending = "Pending"
	// ReasonVerified: a poll got through with the credentials.
	ReasonVerified = "Verified"
	// ReasonReady: credentials work and every region was polled.
	ReasonReady = "Ready"
)

// maxRegionMessage bounds the part of a message about one region.
const maxRegionMessage = 1024

// observed is what an account's status is computed from.
type observed struct {
	// configErr is why no provider could be built, if so.
	configErr *accountprovider.ConfigError
	// results are the last polls, with the current provider, per region.
	results map[string]pollstatus.Result
	// bound is the selector bound to the account.
	bound *types.NamespacedName
	// tenant is the claim of the account's tenant, when claims are made.
	tenant *tenancy.State
}

// computeStatus is the account's status: a pure function of the stored
// status, what was observed and the heartbeat.
func computeStatus(acct *cloudv1alpha1.CloudProviderAccount, in observed, heartbeat time.Duration) cloudv1alpha1.CloudProviderAccountStatus {
	st := *acct.Status.DeepCopy()
	st.ObservedGeneration = acct.Generation
	st.Selector = nil
	if in.bound != nil {
		st.Selector = &cloudv1alpha1.NamespacedObjectReference{Namespace: in.bound.Namespace, Name: in.bound.Name}
	}
	creds := credentials(in)
	polled := inventoryPolled(acct, in)
	if in.configErr == nil && len(in.results) == 0 {
		// Just started, or credentials just changed: what the status says
		// stays until the first poll tells otherwise, rather than flapping.
		creds = stored(st.Conditions, creds)
		polled = stored(st.Conditions, polled)
	}
	changed := false
	conds := []metav1.Condition{creds, polled, ready(creds, polled)}
	if in.tenant != nil {
		conds = append(conds, exclusive(acct.Namespace, *in.tenant))
	}
	for _, c := range conds {
		c.ObservedGeneration = acct.Generation
		if meta.SetStatusCondition(&st.Conditions, c) {
			changed = true
		}
	}
	if last := lastSuccess(acct, in); last != nil {
		old := st.LastSuccessfulPollTime
		if old == nil || (changed && !last.Equal(old)) || (heartbeat > 0 && last.Sub(old.Time) >= heartbeat) {
			st.LastSuccessfulPollTime = last
		}
	}
	return st
}

func credentials(in observed) metav1.Condition {
	c := metav1.Condition{Type: cloudv1alpha1.AccountConditionCredentialsValid}
	if in.configErr != nil {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, in.configErr.Reason, in.configErr.Message
		return c
	}
	for _, region := range sortedRegions(in.results) {
		if r := in.results[region]; r.Reason == cloudv1alpha1.AccountReasonAuthenticationFailed {
			c.Status, c.Reason, c.Message = metav1.ConditionFalse, r.Reason, clip(r.Message)
			return c
		}
	}
	for _, r := range in.results {
		if r.Succeeded() || r.Reason == cloudv1alpha1.AccountReasonThrottled {
			c.Status, c.Reason, c.Message = metav1.ConditionTrue, ReasonVerified, "the cloud accepted the credentials"
			return c
		}
	}
	c.Status, c.Reason, c.Message = metav1.ConditionUnknown, ReasonPending, "no poll has got through with these credentials yet"
	return c
}

func inventoryPolled(acct *cloudv1alpha1.CloudProviderAccount, in observed) metav1.Condition {
	c := metav1.Condition{Type: cloudv1alpha1.AccountConditionInventoryPolled}
	if in.configErr != nil {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, in.configErr.Reason, "not polled: "+in.configErr.Message
		return c
	}
	regions := inventorysync.Regions(acct)
	var failed, pending []string
	reason, whole := "", false
	for _, region := range regions {
		r, ok := in.results[region]
		switch {
		case !ok:
			pending = append(pending, region)
		case !r.Succeeded():
			if reason == "" {
				reason = r.Reason
			}
			whole = whole || !r.Partial
			failed = append(failed, fmt.Sprintf("%s: %s", region, clip(r.Message)))
		}
	}
	switch {
	case len(failed) > 0:
		c.Status, c.Reason = metav1.ConditionFalse, reason
		c.Message = strings.Join(failed, "; ") + "; imported objects are kept as of the last successful poll"
		if !whole {
			c.Message = strings.Join(failed, "; ") + "; what the kinds not read imported is kept as of the last poll that read them"
		}
	case len(pending) > 0:
		c.Status, c.Reason, c.Message = metav1.ConditionUnknown, ReasonPending, "not polled yet: "+strings.Join(pending, ", ")
	default:
		c.Status, c.Reason = metav1.ConditionTrue, cloudv1alpha1.AccountReasonPolled
		c.Message = fmt.Sprintf("the last poll of each of the %d regions succeeded", len(regions))
		if in.bound == nil {
			c.Message += "; no CloudEntitySelector is bound, so nothing is imported and polls wait for one"
		}
	}
	return c
}

// exclusive says whether the account's tenant is managed by one
// controller instance only, and if not, who else wants it and what to do.
func exclusive(tenant string, st tenancy.State) metav1.Condition {
	c := metav1.Condition{Type: cloudv1alpha1.AccountConditionTenantExclusive, Status: metav1.ConditionTrue,
		Reason: cloudv1alpha1.AccountReasonExclusive, Message: fmt.Sprintf("tenant %s is managed by %s alone", tenant, st.Holder)}
	var msgs []string
	if len(st.Contenders) > 0 {
		c.Reason = cloudv1alpha1.AccountReasonContended
		msgs = append(msgs, fmt.Sprintf("controller instance(s) %s also select tenant %s and leave it alone while %s holds it; "+
			"make their --tenant-selector exclude it (or label the Namespace %s=<instance>)",
			strings.Join(st.Contenders, ", "), tenant, st.Holder, tenancyv1alpha1.LabelController))
	}
	if len(st.Elsewhere) > 0 {
		if c.Reason == cloudv1alpha1.AccountReasonExclusive {
			c.Reason = cloudv1alpha1.AccountReasonClaimedInOtherMember
		}
		var other []string
		for _, o := range st.Elsewhere {
			other = append(other, fmt.Sprintf("%s in member %s", o.Holder, o.Member))
		}
		msgs = append(msgs, fmt.Sprintf("tenant %s is also claimed by %s: two members manage the same tenant; "+
			"make the tenant selectors of the cloud controllers of the members disjoint", tenant, strings.Join(other, ", ")))
	}
	if len(msgs) > 0 {
		c.Status, c.Message = metav1.ConditionFalse, strings.Join(msgs, "; ")
	}
	return c
}

func ready(creds, polled metav1.Condition) metav1.Condition {
	c := metav1.Condition{Type: cloudv1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: ReasonReady,
		Message: "the credentials work and every region was polled"}
	for _, dep := range []metav1.Condition{creds, polled} {
		if dep.Status != metav1.ConditionTrue {
			c.Status, c.Reason, c.Message = metav1.ConditionFalse, dep.Reason, dep.Type+": "+dep.Message
			if dep.Status == metav1.ConditionUnknown {
				c.Status = metav1.ConditionUnknown
			}
			return c
		}
	}
	return c
}

// lastSuccess is the oldest last success of the account's regions, nil
// unless each has one.
func lastSuccess(acct *cloudv1alpha1.CloudProviderAccount, in observed) *metav1.Time {
	var oldest time.Time
	for _, region := range inventorysync.Regions(acct) {
		r, ok := in.results[region]
		if !ok || r.LastSuccess.IsZero() {
			return nil
		}
		if oldest.IsZero() || r.LastSuccess.Before(oldest) {
			oldest = r.LastSuccess
		}
	}
	if oldest.IsZero() {
		return nil
	}
	t := metav1.NewTime(oldest.Truncate(time.Second))
	return &t
}

// stored is the stored condition of c's type, or c when there is none.
func stored(conds []metav1.Condition, c metav1.Condition) metav1.Condition {
	if have := meta.FindStatusCondition(conds, c.Type); have != nil {
		return *have
	}
	return c
}

func condition(conds []metav1.Condition, typ string) *metav1.Condition {
	return meta.FindStatusCondition(conds, typ)
}

func sortedRegions(results map[string]pollstatus.Result) []string {
	out := make([]string, 0, len(results))
	for r := range results {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

func clip(s string) string {
	if len(s) <= maxRegionMessage {
		return s
	}
	return s[:maxRegionMessage] + "..."
}
