"""The write rows persistence_benchmark and postgres_benchmark both print."""

# Each write row's name: mode and actor count (persistence_benchmark adds
# ", fsync on|off"; PostgreSQL's have no fsync setting).
WRITE_ROWS = [
    "%s, %d %s" % (mode, actors, "actor" if actors == 1 else "actors")
    for mode in ["Persist", "PersistAsync", "PersistAll(10)"]
    for actors in [1, 10, 100, 1000]
]
