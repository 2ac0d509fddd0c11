"""DiSAN (Shen et al. 2018) and Distance-based SAN (Im & Cho 2017) with full attention traces."""
