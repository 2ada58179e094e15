package task

import "strings"

// BranchPattern is the for-each-ref pattern of the branches whose names
// start with prefix. A pattern ending in "/" matches the branches below
// it; any other prefix needs a glob, whose "*" matches "/" too (branch
// names never hold a glob character, so the prefix is literal).
func BranchPattern(prefix string) string {
	if strings.HasSuffix(prefix, "/") {
		return "refs/heads/" + prefix
	}
	return "refs/heads/" + prefix + "*"
}
