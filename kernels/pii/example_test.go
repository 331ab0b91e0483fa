package pii_test

import (
	"fmt"

	"github.com/sluice-data/sluice/kernels/pii"
)

func ExampleMasker_AppendMasked() {
	kinds, err := pii.ParseKinds("email,phone,ip")
	if err != nil {
		panic(err)
	}
	m, err := pii.NewMasker(pii.Options{Kinds: kinds})
	if err != nil {
		panic(err)
	}
	out, n := m.AppendMasked(nil, []byte("Mail ops@example.org or call (283) 182-3829; host 10.0.0.7, build 10.0.19041."))
	fmt.Println(string(out))
	fmt.Println(pii.Email, n[pii.Email], pii.Phone, n[pii.Phone], pii.IP, n[pii.IP])
	// Output:
	// Mail |||EMAIL_ADDRESS||| or call |||PHONE_NUMBER|||; host |||IP_ADDRESS|||, build 10.0.19041.
	// email 1 phone 1 ip 1
}
