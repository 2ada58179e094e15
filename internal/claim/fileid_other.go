//go:build !unix

package claim

// fileID is "-" where the platform gives no device and inode: there the
// boot id alone binds a generated machine id.
func fileID(string) string { return "-" }
