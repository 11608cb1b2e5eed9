package crypto

import (
	"encoding/asn1"
	"fmt"
)

// certificateKeyInfo returns the DER SubjectPublicKeyInfo of a DER X.509
// certificate: the seventh element of its TBSCertificate counting the
// optional [0] version. Nothing else of the certificate is checked.
func certificateKeyInfo(der []byte) ([]byte, error) {
	var cert, tbs asn1.RawValue
	if _, err := asn1.Unmarshal(der, &cert); err != nil || !cert.IsCompound || cert.Tag != asn1.TagSequence {
		return nil, fmt.Errorf("%w: certificate is not a DER SEQUENCE", ErrInvalidKey)
	}
	if _, err := asn1.Unmarshal(cert.Bytes, &tbs); err != nil || !tbs.IsCompound || tbs.Tag != asn1.TagSequence {
		return nil, fmt.Errorf("%w: certificate without a TBSCertificate", ErrInvalidKey)
	}
	rest, first := tbs.Bytes, true
	for i := 0; ; first = false {
		var e asn1.RawValue
		var err error
		if rest, err = asn1.Unmarshal(rest, &e); err != nil {
			return nil, fmt.Errorf("%w: certificate: %w", ErrInvalidKey, err)
		}
		if first && e.Class == asn1.ClassContextSpecific && e.Tag == 0 {
			continue // the version
		}
		if i == 5 {
			return e.FullBytes, nil
		}
		i++
	}
}
