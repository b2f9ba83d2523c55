package entityexport

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// hashLength is the number of hex digits of the hash a shortened name ends with.
const hashLength = 10

// RemoteName is the name of the RemoteEntity of the ExternalEntity entity
// exported by sourceCluster: "<sourceCluster>.<entity>". Beyond 253
// characters it is cut, with no '.' or '-' left at the cut, and ends with
// '-' and a hash of both names, so that two long names stay distinct.
func RemoteName(sourceCluster, entity string) string {
	n := sourceCluster + "." + entity
	if len(n) <= validation.DNS1123SubdomainMaxLength {
		return n
	}
	sum := sha256.Sum256([]byte(sourceCluster + "/" + entity))
	h := hex.EncodeToString(sum[:])[:hashLength]
	return strings.TrimRight(n[:validation.DNS1123SubdomainMaxLength-1-hashLength], ".-") + "-" + h
}
