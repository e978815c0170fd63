-- The visitor counts of a row: readers who are people, AI agents, and both (the service's split).
human        bigint  NOT NULL,
ai           bigint  NOT NULL,
total        bigint  NOT NULL
