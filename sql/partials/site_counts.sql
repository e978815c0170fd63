-- A site-wide row of visitor counts: the counts, whether its day or period was not over when
-- fetched (partial), and the load that wrote it.
human        bigint  NOT NULL,
ai           bigint  NOT NULL,
total        bigint  NOT NULL,
partial      boolean NOT NULL DEFAULT false,
loaded_at    timestamptz NOT NULL,
run_id       text    NOT NULL,
