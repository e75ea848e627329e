-- The shared serving state (yaksa.store): profiles, conversation history, erasure epochs,
-- the response cache and rate-limit buckets. Mirrors the SQLite schema of yaksa.memory.profile_db.
CREATE TABLE profile_items (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    slot_type TEXT NOT NULL,
    name TEXT NOT NULL,
    item TEXT NOT NULL,
    stored_at DOUBLE PRECISION NOT NULL
);
CREATE INDEX profile_items_user ON profile_items (user_id);

CREATE TABLE conversation_turns (
    user_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    said_at DOUBLE PRECISION NOT NULL
);
CREATE INDEX conversation_turns_user ON conversation_turns (user_id, said_at, seq);

CREATE TABLE erasures (
    user_key TEXT PRIMARY KEY,
    epoch INTEGER NOT NULL,
    erased_at DOUBLE PRECISION NOT NULL
);

-- One row per cached answer; `entry` is the entry's JSON without its vector (float32 bytes).
CREATE TABLE cache_entries (
    id BIGSERIAL PRIMARY KEY,
    bundle_version TEXT NOT NULL,
    entry_id TEXT NOT NULL,
    owner TEXT NOT NULL,
    entry TEXT NOT NULL,
    vector BYTEA NOT NULL,
    stored_at DOUBLE PRECISION NOT NULL,
    UNIQUE (bundle_version, entry_id)
);
CREATE INDEX cache_entries_bundle ON cache_entries (bundle_version, id);
CREATE INDEX cache_entries_owner ON cache_entries (owner);

-- `removals` counts every deletion of cache rows (erasure, eviction, replacement, expiry): a
-- process whose in-memory copy saw another count reloads before its next lookup. `salt` keys the
-- entry ids and content signatures of every host (yaksa.memory.cache_guard).
CREATE TABLE cache_state (
    only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
    removals BIGINT NOT NULL,
    salt TEXT NOT NULL
);
INSERT INTO cache_state (only_row, removals, salt) VALUES (TRUE, 0, replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));

-- serving.ratelimit: `granted` says whether the last take spent a token (one statement does both).
CREATE TABLE rate_buckets (
    key TEXT PRIMARY KEY,
    tokens DOUBLE PRECISION NOT NULL,
    updated DOUBLE PRECISION NOT NULL,
    granted BOOLEAN NOT NULL
);
