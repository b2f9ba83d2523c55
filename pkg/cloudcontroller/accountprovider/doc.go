// Package accountprovider turns a CloudProviderAccount and its Secret into a
// provider.Provider, and keeps the live provider of every account. The
// provider is picked by an explicit switch on spec.provider (aws.New or
// azure.New); there is no registry.
//
// # Usage
//
// See ExampleRead: a configuration read from the account's Secret, its
// provider built once, and a ConfigError.
//
// # Secrets
//
// Credential values are read from the Secret into memory only: they never
// appear in errors, logs, events or status, and a Config prints without
// them. A Secret in another namespace than the account's is refused unless
// Options.AllowCrossNamespaceSecrets is set, so that a tenant cannot use
// another tenant's credentials through the controller. Changing the Secret
// changes the Config's fingerprint, and Ensure builds a new provider.
//
// # Assumed roles
//
// With spec.aws.credentials.assumeRole the Secret's credentials are only
// used to call STS AssumeRole (role ARN, external id, session name); the
// provider signs every other call with the role's temporary credentials,
// cached and renewed before they expire. A role that cannot be assumed
// fails the poll with AuthenticationFailed and a message naming the role
// (never the external id). The external id is part of the fingerprint.
package accountprovider
