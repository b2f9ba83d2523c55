// Package docs checks, as tests, that the documents a newcomer reads first
// say what the tree holds, so that they cannot drift from it unnoticed.
//
//   - The programs table of docs/architecture.md (the table whose first
//     header cell is "program"): one row per directory under cmd/, its first
//     cell the program's name in backticks, and a "packages" column naming
//     in backticks exactly the pkg/ packages that the program's own code
//     (cmd/<program>/..., tests excluded) imports.
//   - The code map of README.md (the table whose first header cell is
//     "path"): its first column names paths in backticks, written in full
//     from the repository's top ("pkg/federation/election", not
//     "election"); a trailing "/" or "/..." is allowed. Every path named
//     exists, and every directory directly under cmd/, pkg/, internal/,
//     test/ and test/infrastructure/ is named, itself or something in it.
//   - Every relative link of README.md and docs/*.md ([text](path#anchor)
//     or a reference definition [name]: path) points to a file or directory
//     that exists, and its anchor, if any, to a heading of the Markdown file
//     it points to.
//   - Usage is shown by compiled Example functions (example_test.go): a
//     "# Usage" section of a package comment under cmd/, pkg/, internal/
//     or test/ holds no code block, and names an Example function that a
//     test file of the package defines (or, where an example cannot be, a
//     *_test.go file that exists, such as a suite using the package).
//
// Run it with: go test ./test/docs
package docs
