"""Ingestion: walk collection roots, convert, analyze and store documents."""
