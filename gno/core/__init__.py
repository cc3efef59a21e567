"""Pure core: identity, mirror, chunking, metadata, links, query grammar. No I/O here."""
