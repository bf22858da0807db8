#ifndef CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_REPLAY_PAGE_ORDER_H_
#define CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_REPLAY_PAGE_ORDER_H_

#include <vector>

#include "persistence/postgresql/internal/postgres_connection.h"

namespace cairn::persistence::postgres_internal {

// The rows of a round's replay page (the journal's replay statement for
// many streams: column 0 the replay's place in the round, column 1 the
// event's sequence number, both bigint) in the order they are delivered:
// by replay, then by sequence number. Returns row indices of `page`.
//
// The statement does not ask the server to sort its rows: a sort of every
// row of a round took about a third of the statement's time, and the
// server's nested loop over the replays returns them in this order
// already. SQL promises no order without ORDER BY, so the order is
// checked here (one pass) and the rows sorted here if a plan ever returns
// them otherwise: the order delivered never depends on the plan.
std::vector<int> ReplayPageOrder(const PgResult& page);

}  // namespace cairn::persistence::postgres_internal

#endif  // CAIRN_PERSISTENCE_POSTGRESQL_INTERNAL_REPLAY_PAGE_ORDER_H_
