-- mintlify-etl schema v13: the visitor hash key moves out of the data's schema into a schema of its
-- own, `<schema>_private` ({{ private_schema }}; DuckDB: main_private), so that no grant a BI login
-- gets on the data (GRANT SELECT ON ALL TABLES IN SCHEMA mintlify, default privileges IN SCHEMA
-- mintlify) reaches it: with the key, visitor_key and user_agent, a reader could recover visitors'
-- ip addresses by trying them. The key is moved, never made anew: a new key would give every
-- visitor a second visitor_key. On PostgreSQL the writer creates the schema before the migrations
-- (or a DBA does, for a writer that may not create schemas), owns it and grants nothing on it (a
-- new schema has no grant to PUBLIC); every sync also takes back any grant someone gave on it or
-- on the key (src/load/postgres/private-schema.ts).
{{ create_schema({{ private_schema }}) }}

CREATE TABLE IF NOT EXISTS {{ private_schema }}.event_hash_key (
  id         integer     NOT NULL PRIMARY KEY,  -- always 1
  hash_key   text        NOT NULL,              -- 64 hex digits
  created_at timestamptz NOT NULL
);
COMMENT ON TABLE {{ private_schema }}.event_hash_key IS 'mintlify-etl table';

INSERT INTO {{ private_schema }}.event_hash_key (id, hash_key, created_at)
SELECT id, hash_key, created_at FROM event_hash_key;  -- two keys (one already there): stops here

DROP TABLE event_hash_key;
