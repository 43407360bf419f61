package corpus.bench;

/** A postal address; its strings come from small shared pools. */
final class Address {
    private final String city;
    private final String country;
    private final String postcode;

    Address(String city, String country, String postcode) {
        this.city = city;
        this.country = country;
        this.postcode = postcode;
    }

    String city() {
        return city;
    }

    String country() {
        return country;
    }

    String postcode() {
        return postcode;
    }
}
