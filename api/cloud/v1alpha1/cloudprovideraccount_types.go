package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CloudProviderAccountSpec says which cloud account to poll, where, and with
// which credentials.
// +kubebuilder:validation:XValidation:rule="self.provider != 'AWS' || has(self.aws)",message="spec.aws is required when provider is AWS",fieldPath=".aws"
// +kubebuilder:validation:XValidation:rule="self.provider == 'AWS' || !has(self.aws)",message="spec.aws is only allowed when provider is AWS",fieldPath=".aws"
// +kubebuilder:validation:XValidation:rule="self.provider != 'Azure' || has(self.azure)",message="spec.azure is required when provider is Azure",fieldPath=".azure"
// +kubebuilder:validation:XValidation:rule="self.provider == 'Azure' || !has(self.azure)",message="spec.azure is only allowed when provider is Azure",fieldPath=".azure"
type CloudProviderAccountSpec struct {
	// provider is the cloud of this account. It cannot be changed; create a
	// new account instead.
	// +required
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="provider is immutable"
	Provider CloudProvider `json:"provider"`

	// aws configures an AWS account. Required when provider is AWS, forbidden
	// otherwise.
	// +optional
	AWS *AWSAccountConfig `json:"aws,omitempty"`

	// azure configures an Azure subscription. Required when provider is
	// Azure, forbidden otherwise.
	// +optional
	Azure *AzureAccountConfig `json:"azure,omitempty"`

	// pollIntervalSeconds is how often the cloud controller polls the cloud
	// inventory of this account.
	// +optional
	// +kubebuilder:default=60
	// +kubebuilder:validation:Minimum=30
	// +kubebuilder:validation:Maximum=3600
	PollIntervalSeconds *int32 `json:"pollIntervalSeconds,omitempty"`

	// allowedSelectorNamespaces lists the namespaces, besides this account's
	// own, whose CloudEntitySelectors may refer to this account. "*" allows
	// every namespace. Empty (the default) allows only this account's
	// namespace.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^(\*|[a-z0-9]([-a-z0-9]*[a-z0-9])?)$`
	AllowedSelectorNamespaces []string `json:"allowedSelectorNamespaces,omitempty"`
}

// AWSAccountConfig configures an AWS account.
type AWSAccountConfig struct {
	// regions to poll, e.g. us-east-1.
	// +required
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.all(r, size(r) > 0)",message="regions must not contain empty strings"
	// +kubebuilder:validation:XValidation:rule="self.all(r, r.matches('^[a-z0-9-]*$'))",message="regions must be region codes of lowercase letters, digits and dashes, e.g. us-east-1"
	Regions []string `json:"regions"`

	// credentials to authenticate with.
	// +required
	Credentials AWSCredentials `json:"credentials"`

	// endpoint overrides the base URL of the AWS service endpoints (EC2 and
	// the services of imported cloud-native services), e.g. for a VPC
	// endpoint or a local emulator. Empty uses the regional AWS endpoints.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="isURL(self) && url(self).getScheme() in ['http', 'https'] && url(self).getHostname() != ''",message="endpoint must be an absolute http or https URL, e.g. https://ec2.example.com"
	Endpoint string `json:"endpoint,omitempty"`
}

// AWSCredentials names the Secret holding AWS credentials, and its keys.
// The credential values never appear in the API, logs, events or status.
type AWSCredentials struct {
	// secretRef names the Secret holding the credentials.
	// +required
	SecretRef SecretReference `json:"secretRef"`

	// accessKeyIDKey is the key of the access key id in the Secret.
	// +optional
	// +kubebuilder:default=accessKeyID
	AccessKeyIDKey SecretKey `json:"accessKeyIDKey,omitempty"`

	// secretAccessKeyKey is the key of the secret access key in the Secret.
	// +optional
	// +kubebuilder:default=secretAccessKey
	SecretAccessKeyKey SecretKey `json:"secretAccessKeyKey,omitempty"`

	// sessionTokenKey is the key of a session token in the Secret, for
	// temporary credentials. Empty means no session token.
	// +optional
	SessionTokenKey SecretKey `json:"sessionTokenKey,omitempty"`

	// assumeRole, if set, makes the controller assume this IAM role with the
	// credentials above and use the role's credentials for every call.
	// +optional
	AssumeRole *AWSAssumeRole `json:"assumeRole,omitempty"`
}

// AWSAssumeRole is an IAM role to assume through STS.
type AWSAssumeRole struct {
	// roleARN is the ARN of the role, e.g.
	// arn:aws:iam::123456789012:role/antreaplus-cloud-controller.
	// +required
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self.matches('^arn:aws[a-z-]*:iam::[0-9]{12}:role/.+$')",message="roleARN must be an IAM role ARN of the form arn:<partition>:iam::<12-digit account id>:role/<name>"
	RoleARN string `json:"roleARN"`

	// externalID is the external id the role's trust policy requires, if any.
	// +optional
	// +kubebuilder:validation:MinLength=2
	// +kubebuilder:validation:MaxLength=1224
	// +kubebuilder:validation:Pattern=`^[\w+=,.@:/-]+$`
	ExternalID string `json:"externalID,omitempty"`

	// sessionName is the role session name recorded in CloudTrail. Defaults
	// to a name chosen by the cloud controller.
	// +optional
	// +kubebuilder:validation:MinLength=2
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[\w+=,.@-]+$`
	SessionName string `json:"sessionName,omitempty"`
}

// AzureAccountConfig configures an Azure subscription.
type AzureAccountConfig struct {
	// regions (Azure locations) to poll, e.g. eastus.
	// +required
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self.all(r, size(r) > 0)",message="regions must not contain empty strings"
	// +kubebuilder:validation:XValidation:rule="self.all(r, r.matches('^[a-z0-9-]*$'))",message="regions must be location names of lowercase letters, digits and dashes, e.g. eastus"
	Regions []string `json:"regions"`

	// credentials to authenticate with.
	// +required
	Credentials AzureCredentials `json:"credentials"`

	// endpoint overrides the Azure Resource Manager URL, e.g. for a sovereign
	// cloud or a local emulator. Empty uses https://management.azure.com.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="isURL(self) && url(self).getScheme() in ['http', 'https'] && url(self).getHostname() != ''",message="endpoint must be an absolute http or https URL, e.g. https://management.azure.com"
	Endpoint string `json:"endpoint,omitempty"`

	// authorityHost overrides the Microsoft Entra ID (Azure AD) URL tokens
	// are requested from. Empty uses https://login.microsoftonline.com.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="isURL(self) && url(self).getScheme() in ['http', 'https'] && url(self).getHostname() != ''",message="authorityHost must be an absolute http or https URL, e.g. https://login.microsoftonline.com"
	AuthorityHost string `json:"authorityHost,omitempty"`
}

// AzureCredentials names the Secret holding an Azure service principal, and
// its keys. The credential values never appear in the API, logs, events or
// status.
type AzureCredentials struct {
	// secretRef names the Secret holding the credentials.
	// +required
	SecretRef SecretReference `json:"secretRef"`

	// subscriptionIDKey is the key of the subscription id in the Secret.
	// +optional
	// +kubebuilder:default=subscriptionID
	SubscriptionIDKey SecretKey `json:"subscriptionIDKey,omitempty"`

	// tenantIDKey is the key of the tenant id in the Secret.
	// +optional
	// +kubebuilder:default=tenantID
	TenantIDKey SecretKey `json:"tenantIDKey,omitempty"`

	// clientIDKey is the key of the service principal's client id in the
	// Secret.
	// +optional
	// +kubebuilder:default=clientID
	ClientIDKey SecretKey `json:"clientIDKey,omitempty"`

	// clientSecretKey is the key of the service principal's client secret in
	// the Secret.
	// +optional
	// +kubebuilder:default=clientSecret
	ClientSecretKey SecretKey `json:"clientSecretKey,omitempty"`
}

// Condition types and reasons of a CloudProviderAccount.
const (
	// AccountConditionCredentialsValid is True when the credentials were read
	// from the Secret and the cloud accepted them.
	AccountConditionCredentialsValid = "CredentialsValid"
	// AccountConditionInventoryPolled is True when the last poll of every
	// region succeeded; when False its message carries the cloud's error.
	AccountConditionInventoryPolled = "InventoryPolled"
	// AccountConditionTenantExclusive is True when one controller instance,
	// in one member, manages the account's tenant (its Namespace); False
	// when another instance selects the tenant too (reason Contended) or
	// it is claimed in another member of the federation (reason
	// ClaimedInOtherMember). It does not change Ready: the owner keeps
	// managing the tenant; the others leave it alone.
	AccountConditionTenantExclusive = "TenantExclusive"

	// AccountReasonSecretNotFound: the referenced Secret does not exist.
	AccountReasonSecretNotFound = "SecretNotFound"
	// AccountReasonSecretKeyMissing: a referenced key is missing in the Secret.
	AccountReasonSecretKeyMissing = "SecretKeyMissing"
	// AccountReasonAuthenticationFailed: the cloud refused the credentials.
	AccountReasonAuthenticationFailed = "AuthenticationFailed"
	// AccountReasonRegionUnavailable: a region does not exist or is not
	// enabled for the account.
	AccountReasonRegionUnavailable = "RegionUnavailable"
	// AccountReasonThrottled: the cloud throttled the poll.
	AccountReasonThrottled = "Throttled"
	// AccountReasonPollFailed: the poll failed for another reason.
	AccountReasonPollFailed = "PollFailed"
	// AccountReasonPolled: the poll succeeded.
	AccountReasonPolled = "Polled"
	// AccountReasonExclusive: one controller instance claims the tenant.
	AccountReasonExclusive = "Exclusive"
	// AccountReasonContended: other instances select the tenant too.
	AccountReasonContended = "Contended"
	// AccountReasonClaimedInOtherMember: another member claims the tenant.
	AccountReasonClaimedInOtherMember = "ClaimedInOtherMember"
)

// CloudProviderAccountStatus is what the cloud controller observed of the
// account.
type CloudProviderAccountStatus struct {
	// observedGeneration is the metadata.generation this status was computed
	// from.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready, CredentialsValid and InventoryPolled.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// lastSuccessfulPollTime is when a poll of every region last succeeded.
	// +optional
	LastSuccessfulPollTime *metav1.Time `json:"lastSuccessfulPollTime,omitempty"`

	// selector is the CloudEntitySelector currently bound to this account.
	// An account has at most one selector; others referring to it are
	// refused.
	// +optional
	Selector *NamespacedObjectReference `json:"selector,omitempty"`
}

// NamespacedObjectReference names an object of a known kind.
type NamespacedObjectReference struct {
	// name of the object.
	// +required
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// namespace of the object.
	// +required
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace"`
}

// CloudProviderAccount is a cloud account (an AWS account or an Azure
// subscription) whose inventory the cloud controller polls, with credentials
// kept in a Secret.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=cpa,categories={antreaplus,cloud}
// +kubebuilder:printcolumn:name="Provider",type=string,JSONPath=`.spec.provider`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Credentials",type=string,JSONPath=`.status.conditions[?(@.type=="CredentialsValid")].status`
// +kubebuilder:printcolumn:name="Last Poll",type=date,JSONPath=`.status.lastSuccessfulPollTime`
// +kubebuilder:printcolumn:name="Selector",type=string,JSONPath=`.status.selector.name`,priority=1
// +kubebuilder:printcolumn:name="Interval",type=integer,JSONPath=`.spec.pollIntervalSeconds`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type CloudProviderAccount struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says which account to poll and how.
	// +required
	Spec CloudProviderAccountSpec `json:"spec"`

	// status is what the cloud controller observed.
	// +optional
	Status CloudProviderAccountStatus `json:"status,omitempty"`
}

// CloudProviderAccountList is a list of CloudProviderAccounts.
// +kubebuilder:object:root=true
type CloudProviderAccountList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the CloudProviderAccounts.
	Items []CloudProviderAccount `json:"items"`
}
