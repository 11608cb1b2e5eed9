package pulsar

// athenzAuth stands for Athenz authentication, which pulsargo does not
// implement: it needs Athenz's ZTS client (role tokens signed with the
// tenant's private key, fetched from and refreshed against ZTS), and the
// only Go library for it is the Athenz project's own, with its dependency
// tree. Code that names the method compiles; NewClient refuses it.
type athenzAuth struct{}

func (athenzAuth) Name() string          { return "athenz" }
func (athenzAuth) Data() ([]byte, error) { return nil, ErrAthenzNotSupported }
func (athenzAuth) init() error           { return ErrAthenzNotSupported }

// NewAuthenticationAthenz exists so that code written for the official
// client compiles; Athenz is not implemented, and NewClient fails with
// ErrAthenzNotSupported whatever the params.
func NewAuthenticationAthenz(_ map[string]string) Authentication { return athenzAuth{} }
