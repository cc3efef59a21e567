"""The REST surface of `gno serve`: routes made from the registry's ``rest`` bindings.

``app`` builds the FastAPI application, ``routes`` one endpoint per operation,
``bodies`` maps GNO's REST spellings to operation inputs, ``views`` shapes the
answers that differ from the operation output, ``security`` holds the request
gates (token, CSRF, body size, same-host) and ``errors`` the envelope.
FastAPI is imported only here and by `gno serve`.
"""
