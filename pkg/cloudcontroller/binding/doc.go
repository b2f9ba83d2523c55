// Package binding decides, as pure functions, whether a CloudEntitySelector
// may use the CloudProviderAccount it names, and which one selector an
// account is bound to. The account, selector and inventory reconcilers all
// call Resolve on what they read, so they agree without storing a decision
// of their own.
//
// # Usage
//
// See ExampleResolve. The reconcilers list the selectors referring to an
// account with Selectors (AddIndex on the manager) and take the Verdict of
// each for its Accepted condition.
//
// # Rules
//
//   - A selector refers to accountRef.namespace, or to its own namespace when
//     that is empty. A missing account refuses it with AccountNotFound.
//   - An account in another namespace is usable only when the account lists
//     the selector's namespace, or "*", in spec.allowedSelectorNamespaces;
//     otherwise NamespaceNotAllowed.
//   - A cloudNativeServices kind of the other cloud refuses the selector with
//     ProviderMismatch, rather than silently importing nothing.
//   - Of the selectors left, the one the account's status already names
//     stays bound (a binding is never stolen); otherwise the oldest by
//     creation time wins, ties broken by namespace and name. Every other
//     one is refused with AccountInUse, naming the bound selector.
//   - Selectors being deleted are never bound.
package binding
