#include "persistence/postgresql/internal/postgres_schema.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "base/string_view.h"

namespace cairn::persistence::postgres_internal {
namespace {

// Version 1. Events are keyed by stream and sequence number; `ordering`
// is the global order queries by tag follow. journal_stream keeps each
// stream's highest sequence number, also after its events are deleted,
// and is where a write's sequence rule is checked (cairn_advance_stream):
// its row lock is what makes two writers of one stream, in any processes,
// take turns, and the second one fail.
constexpr char kTables[] = R"sql(
CREATE TABLE cairn_schema (version integer NOT NULL);

CREATE TABLE journal_stream (
  persistence_id text PRIMARY KEY,
  highest_sequence_number bigint NOT NULL,
  created bigint GENERATED ALWAYS AS IDENTITY UNIQUE
);

CREATE TABLE event_journal (
  ordering bigint GENERATED ALWAYS AS IDENTITY,
  persistence_id text NOT NULL,
  sequence_number bigint NOT NULL,
  writer text NOT NULL,
  write_timestamp bigint NOT NULL,
  adapter_manifest text NOT NULL,
  serializer_id integer NOT NULL,
  serializer_manifest text NOT NULL,
  payload bytea NOT NULL,
  tags text[] NOT NULL,
  PRIMARY KEY (persistence_id, sequence_number)
);
CREATE UNIQUE INDEX event_journal_ordering ON event_journal (ordering);

CREATE TABLE event_tag (
  tag text NOT NULL,
  ordering bigint NOT NULL,
  PRIMARY KEY (tag, ordering)
);
CREATE INDEX event_tag_ordering ON event_tag (ordering);

CREATE TABLE snapshot (
  persistence_id text NOT NULL,
  sequence_number bigint NOT NULL,
  write_timestamp bigint NOT NULL,
  serializer_id integer NOT NULL,
  serializer_manifest text NOT NULL,
  payload bytea NOT NULL,
  PRIMARY KEY (persistence_id, sequence_number)
);

-- Leases (docs/POSTGRESQL.md, "Leases and fencing"). A row is never
-- deleted: its fencing token only grows, so a token is never granted twice.
-- Times are the server's (clock_timestamp()), one clock for every process.
CREATE TABLE cairn_lease (
  name text PRIMARY KEY,
  owner text NOT NULL,
  fencing_token bigint NOT NULL,
  expires_at timestamptz NOT NULL
);

-- Raises unless `holder` holds `lease` with `token`, unexpired. FOR SHARE
-- keeps the row until the caller's transaction ends: a takeover (an UPDATE
-- of the row) waits for the write to commit, and comes after it.
CREATE FUNCTION cairn_check_lease(lease text, holder text, token bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  found_owner text;
  found_token bigint;
  found_expiry timestamptz;
BEGIN
  SELECT owner, fencing_token, expires_at
    INTO found_owner, found_token, found_expiry
    FROM cairn_lease WHERE name = lease FOR SHARE;
  IF found_owner IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'CN002',
      MESSAGE = format('lease %L was never granted', lease);
  END IF;
  IF found_owner <> holder OR found_token <> token THEN
    RAISE EXCEPTION USING ERRCODE = 'CN002',
      MESSAGE = format('lease %L is held by %L with fencing token %s, not by %L with %s',
                       lease, found_owner, found_token, holder, token);
  END IF;
  IF found_expiry <= clock_timestamp() THEN
    RAISE EXCEPTION USING ERRCODE = 'CN002',
      MESSAGE = format('lease %L of %L (fencing token %s) expired at %s',
                       lease, holder, token, found_expiry);
  END IF;
END
$$;

-- cairn_advance_stream for many streams in one statement (each at most
-- once): raises if any of them is not where its write expects it. The
-- journal then finds which one with cairn_advance_stream, one by one.
CREATE FUNCTION cairn_advance_streams(pids text[], expected bigint[],
                                      lasts bigint[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  advanced bigint;
BEGIN
  WITH input AS (
    SELECT * FROM unnest(pids, expected, lasts) WITH ORDINALITY
      AS t(pid, expected, last, n)
  ), moved AS (
    UPDATE journal_stream s SET highest_sequence_number = i.last
      FROM input i
      WHERE i.expected > 0 AND s.persistence_id = i.pid
        AND s.highest_sequence_number = i.expected
      RETURNING 1
  ), made AS (
    INSERT INTO journal_stream (persistence_id, highest_sequence_number)
      SELECT i.pid, i.last FROM input i WHERE i.expected = 0 ORDER BY i.n
      ON CONFLICT (persistence_id) DO NOTHING
      RETURNING 1
  )
  SELECT (SELECT count(*) FROM moved) + (SELECT count(*) FROM made)
    INTO advanced;
  IF advanced <> cardinality(pids) THEN
    RAISE EXCEPTION USING ERRCODE = 'CN003',
      MESSAGE = 'a write does not follow its stream';
  END IF;
END
$$;

CREATE FUNCTION cairn_advance_stream(pid text, expected bigint, last bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  actual bigint;
BEGIN
  IF expected = 0 THEN
    INSERT INTO journal_stream (persistence_id, highest_sequence_number)
      VALUES (pid, last) ON CONFLICT (persistence_id) DO NOTHING;
  ELSE
    UPDATE journal_stream SET highest_sequence_number = last
      WHERE persistence_id = pid AND highest_sequence_number = expected;
  END IF;
  IF NOT FOUND THEN
    SELECT highest_sequence_number INTO actual FROM journal_stream
      WHERE persistence_id = pid;
    RAISE EXCEPTION USING ERRCODE = 'CN001',
      MESSAGE = coalesce(actual, 0)::text;
  END IF;
END
$$;
)sql";

// Version 2: where projections keep their offsets and exactly-once read
// models (PostgresProjectionStore; persistence/storage/projection_store.h).
// Keys and values of the model are the handlers' bytes, ordered bytewise.
constexpr char kTablesV2[] = R"sql(
CREATE TABLE projection_offset (
  name text NOT NULL,
  key text NOT NULL,
  last_offset bigint NOT NULL,
  envelopes bigint NOT NULL,
  PRIMARY KEY (name, key)
);

CREATE TABLE projection_model (
  key bytea PRIMARY KEY,
  value bytea NOT NULL
);
)sql";

// Version 3: a projection's commit advances its offset only from the one
// its step began at ($3, $4), to $5, $6; otherwise CN004 with the stored
// offset, and the commit's transaction (the read model's writes) is
// rolled back. The first commit inserts the row; of two first commits at
// once, the second finds it (ON CONFLICT waits for the first) and fails.
constexpr char kTablesV3[] = R"sql(
CREATE FUNCTION cairn_advance_projection(p_name text, p_key text,
    expected_offset bigint, expected_envelopes bigint,
    new_offset bigint, new_envelopes bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  found_offset bigint;
  found_envelopes bigint;
BEGIN
  IF expected_offset = 0 AND expected_envelopes = 0 THEN
    INSERT INTO projection_offset (name, key, last_offset, envelopes)
    VALUES (p_name, p_key, new_offset, new_envelopes)
    ON CONFLICT (name, key) DO NOTHING;
    IF FOUND THEN
      RETURN;
    END IF;
  END IF;
  UPDATE projection_offset SET last_offset = new_offset,
      envelopes = new_envelopes
    WHERE name = p_name AND key = p_key AND last_offset = expected_offset
      AND envelopes = expected_envelopes;
  IF FOUND THEN
    RETURN;
  END IF;
  SELECT last_offset, envelopes INTO found_offset, found_envelopes
    FROM projection_offset WHERE name = p_name AND key = p_key;
  RAISE EXCEPTION USING ERRCODE = 'CN004',
    MESSAGE = coalesce(found_offset, 0) || ' ' || coalesce(found_envelopes, 0);
END;
$$;
)sql";

// Version 4: the members of a cluster (PostgresMembers; docs/POSTGRESQL.md,
// "Members"), one row per address, the key. A process started again at an
// address replaces the row with its own uid. Times are the server's
// (clock_timestamp()), as the leases'. The address is ordered bytewise
// (COLLATE "C"), whatever the database's collation. IF NOT EXISTS: the
// table may have been made by hand before the upgrade.
constexpr char kTablesV4[] = R"sql(
CREATE TABLE IF NOT EXISTS cairn_member (
  address text COLLATE "C" PRIMARY KEY,
  uid bigint NOT NULL,
  roles text[] NOT NULL,
  status text NOT NULL CHECK (status IN ('up', 'leaving', 'exiting')),
  expires_at timestamptz NOT NULL
);
)sql";

// Version 5: the durable state store (PostgresDurableStateStore;
// persistence/storage/durable_state_store.h): one row per persistence id,
// its last change. A delete keeps the row (payload and serializer NULL) so
// that the revision goes on from it, and keeps its tag, so that the delete
// is the id's change under that tag (a delete of an id never written has
// no tag, NULL: nothing to report). `state_offset` comes from a sequence on
// every write (a delete too), drawn under an advisory lock of the schema's
// durable state held to the commit, so offsets rise in commit order across
// processes: a projection that read up to an offset never misses a change
// committed later with a lower one (as event_journal's `ordering`,
// docs/POSTGRESQL.md "Queries"). The lock is not the journal's: state
// writes and event writes do not wait for each other.
//
// cairn_write_state writes revision `rev` of `pid` (a NULL payload: a
// delete, whose `p_tag` is NULL: an existing row keeps its tag) only over
// revision rev - 1 (no row for rev 1), else raises CN005 with the stored
// revision, read after the write found nothing (a statement of its own: it
// sees a concurrent writer's commit), and its transaction changes nothing. IF
// NOT EXISTS, OR REPLACE: harmless if an upgrade of another process or a hand
// got there first.
constexpr char kTablesV5[] = R"sql(
CREATE SEQUENCE IF NOT EXISTS durable_state_offset;

CREATE TABLE IF NOT EXISTS durable_state (
  persistence_id text PRIMARY KEY,
  revision bigint NOT NULL,
  state_offset bigint NOT NULL,
  tag text,
  serializer_id integer,
  serializer_manifest text,
  payload bytea,
  written_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS durable_state_tag
  ON durable_state (tag, state_offset);

CREATE OR REPLACE FUNCTION cairn_write_state(pid text, rev bigint,
    p_tag text, sid integer, manifest text, p bytea)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  next_offset bigint;
  found_revision bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(
    hashtext('cairn-state-ordering:' || current_schema()));
  next_offset := nextval('durable_state_offset');
  IF rev = 1 THEN
    INSERT INTO durable_state (persistence_id, revision, state_offset, tag,
        serializer_id, serializer_manifest, payload, written_at)
      VALUES (pid, 1, next_offset, p_tag, sid, manifest, p, clock_timestamp())
      ON CONFLICT (persistence_id) DO NOTHING;
  ELSE
    UPDATE durable_state SET revision = rev, state_offset = next_offset,
        tag = CASE WHEN p IS NULL THEN durable_state.tag ELSE p_tag END,
        serializer_id = sid, serializer_manifest = manifest,
        payload = p, written_at = clock_timestamp()
      WHERE persistence_id = pid AND revision = rev - 1;
  END IF;
  IF NOT FOUND THEN
    SELECT revision INTO found_revision FROM durable_state
      WHERE persistence_id = pid;
    RAISE EXCEPTION USING ERRCODE = 'CN005',
      MESSAGE = coalesce(found_revision, 0)::text;
  END IF;
END
$$;
)sql";

}  // namespace

absl::Status LeaseRefusal(const absl::Status& error, std::string_view what) {
  if (PgSqlState(error) != kLeaseNotHeldSqlState) return error;
  return absl::FailedPreconditionError(
      base::StrCat(what, ": ", PgPrimaryMessage(error)));
}

absl::Status CheckPgSchemaName(std::string_view schema) {
  bool ok = !schema.empty() && schema.size() <= 63 &&
            !(schema[0] >= '0' && schema[0] <= '9');
  for (char c : schema) {
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  }
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(base::StrCat(
      "schema '", schema,
      "': must be a lowercase identifier ([a-z_][a-z0-9_]*, at most 63 "
      "characters)"));
}

absl::Status EnsurePgSchema(PgConnection& connection, std::string_view schema) {
  if (absl::Status s = CheckPgSchemaName(schema); !s.ok()) return s;
  // Everything in one transaction under a lock of this schema's own, so
  // that of several processes starting at once one creates the tables and
  // the others find them.
  auto run = [&connection](std::string_view sql,
                           const PgParams& params = {}) -> absl::Status {
    return connection.Execute(sql, params).status();
  };
  if (absl::Status s = run("BEGIN"); !s.ok()) return s;
  auto fail = [&connection](absl::Status why) {
    (void)connection.Execute("ROLLBACK");  // the cause is what matters
    return why;
  };
  if (absl::Status s = run("SELECT pg_advisory_xact_lock(hashtext($1))",
                           PgParams().Text(base::StrCat("cairn:", schema)));
      !s.ok()) {
    return fail(s);
  }
  if (absl::Status s = run(base::StrCat("CREATE SCHEMA IF NOT EXISTS ",
                                        QuoteIdentifier(schema)));
      !s.ok()) {
    return fail(s);
  }
  absl::StatusOr<PgResult> exists =
      connection.Execute("SELECT to_regclass('cairn_schema') IS NOT NULL");
  if (!exists.ok()) return fail(exists.status());
  if (!exists->Bool(0, 0)) {
    if (absl::Status s = connection.ExecuteScript(kTables); !s.ok()) {
      return fail(s);
    }
    if (absl::Status s = connection.ExecuteScript(kTablesV2); !s.ok()) {
      return fail(s);
    }
    if (absl::Status s = connection.ExecuteScript(kTablesV3); !s.ok()) {
      return fail(s);
    }
    if (absl::Status s = connection.ExecuteScript(kTablesV4); !s.ok()) {
      return fail(s);
    }
    if (absl::Status s = connection.ExecuteScript(kTablesV5); !s.ok()) {
      return fail(s);
    }
    if (absl::Status s = run("INSERT INTO cairn_schema (version) VALUES ($1)",
                             PgParams().Int32(kPgSchemaVersion));
        !s.ok()) {
      return fail(s);
    }
    return run("COMMIT");
  }
  absl::StatusOr<PgResult> version =
      connection.Execute("SELECT max(version) FROM cairn_schema");
  if (!version.ok()) return fail(version.status());
  if (version->rows() != 1 || version->IsNull(0, 0)) {
    return fail(absl::FailedPreconditionError(base::StrCat(
        "schema '", schema,
        "': its cairn_schema table has no version row (not made by cairn, "
        "or damaged)")));
  }
  const int found = version->Int32(0, 0);
  if (found > kPgSchemaVersion) {
    return fail(absl::FailedPreconditionError(
        base::StrCat("schema '", schema, "' has cairn's tables of version ",
                     found, ", newer than this build's ", kPgSchemaVersion,
                     ": run a newer cairn, or use another schema")));
  }
  if (found < kPgSchemaVersion) {  // under the advisory lock: one upgrades
    if (found < 2) {
      if (absl::Status s = connection.ExecuteScript(kTablesV2); !s.ok()) {
        return fail(s);
      }
    }
    if (found < 3) {
      if (absl::Status s = connection.ExecuteScript(kTablesV3); !s.ok()) {
        return fail(s);
      }
    }
    if (found < 4) {
      if (absl::Status s = connection.ExecuteScript(kTablesV4); !s.ok()) {
        return fail(s);
      }
    }
    if (absl::Status s = connection.ExecuteScript(kTablesV5); !s.ok()) {
      return fail(s);
    }
    if (absl::Status s = run("UPDATE cairn_schema SET version = $1",
                             PgParams().Int32(kPgSchemaVersion));
        !s.ok()) {
      return fail(s);
    }
  }
  return run("COMMIT");
}

}  // namespace cairn::persistence::postgres_internal
