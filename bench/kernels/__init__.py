"""
The generator of random pypto kernels (hypothesis strategies): the property
tests draw from it, and `python -m bench orders` draws its fixed corpus.
"""
