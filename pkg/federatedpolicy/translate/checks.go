package translate

import (
	"fmt"

	antreav1beta1 "antreaplus.io/antreaplus/api/antrea/v1beta1"
)

// checkRuleNames refuses a policy that names two rules alike: Antrea
// requires rule names unique within a policy.
func checkRuleNames(spec *antreav1beta1.NetworkPolicySpec) *Problem {
	seen := map[string]string{}
	check := func(dir string, rules []antreav1beta1.Rule) *Problem {
		for i, r := range rules {
			if r.Name == "" {
				continue
			}
			id := fmt.Sprintf("%s[%d]", dir, i)
			if other, ok := seen[r.Name]; ok {
				return &Problem{Reason: ReasonInvalidPolicy, Message: fmt.Sprintf("rule name %q is used by %s and %s: rule names must be unique within the policy", r.Name, other, id)}
			}
			seen[r.Name] = id
		}
		return nil
	}
	if prob := check(ingress, spec.Ingress); prob != nil {
		return prob
	}
	return check(egress, spec.Egress)
}

// checkRules fails a translation whose rules exceed the CRD's limit.
func (t *translator) checkRules(spec *antreav1beta1.NetworkPolicySpec) {
	for _, d := range []struct {
		dir   string
		rules []antreav1beta1.Rule
	}{{ingress, spec.Ingress}, {egress, spec.Egress}} {
		if len(d.rules) > maxRules {
			t.fail(&Problem{Reason: ReasonTooLarge, Message: fmt.Sprintf(
				"the derived policy would have %d %s rules (rules are split per port set of federated Services and per %d peers); an Antrea NetworkPolicy holds at most %d: split the federated policy in several",
				len(d.rules), d.dir, maxPeers, maxRules)})
		}
	}
}

// uniqueRuleNames renames derived rules whose generated names ("ingress-0",
// "<name>-<n>") collide with another rule's: the later one takes the
// first free "<name>-x<k>".
func uniqueRuleNames(spec *antreav1beta1.NetworkPolicySpec) {
	seen := map[string]bool{}
	for _, rules := range [][]antreav1beta1.Rule{spec.Ingress, spec.Egress} {
		for i := range rules {
			name := rules[i].Name
			for k := 2; seen[name]; k++ {
				name = fmt.Sprintf("%s-x%d", rules[i].Name, k)
			}
			rules[i].Name = name
			seen[name] = true
		}
	}
}
