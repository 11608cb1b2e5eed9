package brokerstub

import "errors"

// errReachMaxActiveTxn is the coordinator's refusal of a new transaction
// while Gates.MaxActiveTransactionsPerCoordinator are open (Pulsar's
// ReachMaxActiveTxnException). As Pulsar's ServerCnx, the NEW_TXN is then
// not answered at all, so that clients do not retry in a loop
// (apache/pulsar#15133): the client's request times out, and a
// transaction can be opened again once one of the open ones has ended.
var errReachMaxActiveTxn = errors.New("new transaction over maxActiveTransactionsPerCoordinator")
