package madeby

// homeVar names the home folder: on Windows the user's profile, which
// os.UserHomeDir answers there and where the runners (Node and Rust
// programs) keep their folders; HOME is usually unset.
const homeVar = "USERPROFILE"
