// Package account is the CloudProviderAccount reconciler of the cloud
// controller. It reads the account's Secret (never caching Secrets, never
// logging their values), builds the account's provider through
// accountprovider when the credentials or endpoint changed, and writes the
// account's status from what it read and from the outcome of the last poll
// of each region (pollstatus): CredentialsValid, InventoryPolled, Ready,
// lastSuccessfulPollTime and the bound selector.
//
// # Usage
//
// See ExampleReconciler.
//
// # Status
//
//   - CredentialsValid is False with SecretNotFound, SecretKeyMissing,
//     SecretNamespaceNotAllowed or Unsupported when the provider cannot be
//     built, False with AuthenticationFailed and the cloud's message when a
//     poll was refused, True once a poll got through, Unknown before.
//   - InventoryPolled is True when the last poll of every region
//     succeeded, False with the first failing region's reason (Throttled,
//     RegionUnavailable, ...) and every failing region's error otherwise.
//   - lastSuccessfulPollTime is the oldest of the regions' last successes.
//     It is refreshed only with another change or once older than the
//     heartbeat, so that a poll where nothing changed writes nothing.
//   - The status is written only when it differs from the stored one.
package account
