"""Sequential synthesis of a Dask DataFrame (private): imported only when
:func:`synthguard.synthesize` or :meth:`synthguard.Synthesizer.fit` is given a Dask frame."""
