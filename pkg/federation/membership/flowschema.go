package membership

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"

	federationv1alpha1 "antreaplus.io/antreaplus/api/federation/v1alpha1"
)

// flowSchemaPrecedence orders our FlowSchema after the API server's own
// leader-election schemas (system-leader-election 100,
// workload-leader-election 200) and before those that would otherwise take
// the federation account's requests (service-accounts 9000,
// global-default 9900).
const flowSchemaPrecedence = 250

// flowSchema classifies the federation account's requests on the Leases of
// the federation's namespace (the leader election and the managers'
// heartbeats) at the leader-election priority level, as the Kubernetes
// controllers' own elections are: on a busy API server, a renewal is not
// queued behind the federation's lists and writes (its other requests stay
// in service-accounts). Flows are told apart by user: one per supervisor
// account would be finer, but every supervisor reaches a member with the
// same account.
func flowSchema() *flowcontrolv1.FlowSchema {
	return &flowcontrolv1.FlowSchema{
		ObjectMeta: clusterScoped(federationv1alpha1.FederationFlowSchema),
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: federationv1alpha1.LeaderElectionPriorityLevel},
			MatchingPrecedence:         flowSchemaPrecedence,
			DistinguisherMethod:        &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType},
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects: []flowcontrolv1.Subject{{
					Kind: flowcontrolv1.SubjectKindServiceAccount,
					ServiceAccount: &flowcontrolv1.ServiceAccountSubject{
						Namespace: federationv1alpha1.SystemNamespace, Name: federationv1alpha1.FederationServiceAccount,
					},
				}},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
					Verbs:      []string{"get", "create", "update"},
					APIGroups:  []string{coordinationv1.GroupName},
					Resources:  []string{"leases"},
					Namespaces: []string{federationv1alpha1.SystemNamespace},
				}},
			}},
		},
	}
}
